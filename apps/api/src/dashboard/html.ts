import escapeHtml from 'escape-html';

/** Markup that is already safe: made only by `html`, `raw` or `join`, never from a plain string. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export type Renderable = SafeHtml | string | number | boolean | null | undefined | readonly Renderable[];

const render = (v: Renderable): string => {
  if (v === null || v === undefined || v === false) return '';
  if (v instanceof SafeHtml) return v.value;
  if (Array.isArray(v)) return (v as readonly Renderable[]).map(render).join('');
  return escapeHtml(String(v));
};

/**
 * The dashboard's templates: a tagged template in which every interpolated value is escaped
 * (escape-html) unless it is itself SafeHtml, and arrays are rendered in order. Typed by TypeScript
 * like any function, so a page is a function of its data.
 */
export const html = (strings: TemplateStringsArray, ...values: Renderable[]): SafeHtml => {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i += 1) out += render(values[i]) + (strings[i + 1] ?? '');
  return new SafeHtml(out);
};

/** Markup built by our own code (an SVG path's numbers): never pass text from a request here. */
export const raw = (trusted: string): SafeHtml => new SafeHtml(trusted);
