// Types for sources.js, which stays plain JavaScript so `npm start` needs no TypeScript loader.
export const ROOT: string;
export const STAMP: string;
export const isStale: (outDir: string, root?: string) => boolean;
export const isTestFile: (name: string) => boolean;
export const walk: (root: string, dir: string, withDirs?: boolean) => string[];
export const workspaces: (root?: string) => string[];
