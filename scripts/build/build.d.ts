// Types for build.js, which stays plain JavaScript so `npm start` needs no TypeScript loader.
export const build: (options?: { outDir?: string; links?: boolean }) => { outDir: string; files: number };
