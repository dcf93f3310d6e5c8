import { decodeXmlText } from './entities';
import { ATTRS, CDATA, TEXT, type XmlNode } from './xml';

const isNode = (v: unknown): v is XmlNode => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Child elements with this tag, in document order. */
export function childrenOf(node: XmlNode, tag: string): XmlNode[] {
  if (!Object.hasOwn(node, tag)) return [];
  const value = node[tag];
  const list = Array.isArray(value) ? value : [value];
  return list.map((v) => (isNode(v) ? v : { [TEXT]: typeof v === 'string' ? v : '' }));
}

/** Decoded attribute value; undefined when absent. */
export function attrOf(node: XmlNode, name: string): string | undefined {
  const attrs = node[ATTRS];
  if (!isNode(attrs) || !Object.hasOwn(attrs, name)) return undefined;
  const value = attrs[name];
  return typeof value === 'string' ? decodeXmlText(value) : undefined;
}

/** Text content of the element itself (character data decoded, CDATA verbatim), trimmed. */
export function textOf(node: XmlNode): string {
  const raw = node[TEXT];
  const text = typeof raw === 'string' ? decodeXmlText(raw) : '';
  const cdata = childrenOf(node, CDATA)
    .map((c) => (typeof c[TEXT] === 'string' ? c[TEXT] : ''))
    .join('');
  return (cdata + text).trim();
}

/** `<properties><property name value/>` (or the value as element text), as a map. */
export function propertiesOf(node: XmlNode): Map<string, string> {
  const props = new Map<string, string>();
  for (const group of childrenOf(node, 'properties')) {
    for (const p of childrenOf(group, 'property')) {
      const name = attrOf(p, 'name');
      if (name !== undefined) props.set(name, attrOf(p, 'value') ?? textOf(p));
    }
  }
  return props;
}
