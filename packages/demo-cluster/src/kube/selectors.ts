import type { KubeObject, Resource } from "../store";

/**
 * Label and field selectors as the Kubernetes API parses them (k8s.io/apimachinery labels.Parse and fields.ParseSelector).
 * Pure functions; a malformed selector throws SelectorError (the API answers 400 BadRequest).
 */

export class SelectorError extends Error {}

export type Operator = "=" | "!=" | "in" | "notin" | "exists" | "!" | "gt" | "lt";

export interface Requirement {
  key: string;
  operator: Operator;
  values: string[];
}

export type Predicate = (o: KubeObject) => boolean;

const KEY_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const KEY_PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function validateKey(key: string): void {
  const slash = key.indexOf("/");
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !KEY_PREFIX.test(prefix))) {
    throw new SelectorError(`invalid label key "${key}": prefix part must be a DNS subdomain`);
  }
  if (name.length === 0 || name.length > 63 || !KEY_NAME.test(name)) {
    throw new SelectorError(`invalid label key "${key}": name part must consist of alphanumeric characters, '-', '_' or '.'`);
  }
}

function validateValue(value: string): void {
  if (value.length > 63 || !VALUE.test(value)) {
    throw new SelectorError(`invalid label value: "${value}": must be 63 characters or less and consist of alphanumeric characters, '-', '_' or '.'`);
  }
}

type Token = { kind: "id"; text: string } | { kind: "op"; text: "=" | "==" | "!=" | "!" | "(" | ")" | "," | "<" | ">" };

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i];
    if (/\s/.test(c)) {
      i++;
    } else if (c === "=" && input[i + 1] === "=") {
      tokens.push({ kind: "op", text: "==" });
      i += 2;
    } else if (c === "!" && input[i + 1] === "=") {
      tokens.push({ kind: "op", text: "!=" });
      i += 2;
    } else if ("=!(),<>".includes(c)) {
      tokens.push({ kind: "op", text: c as "=" });
      i++;
    } else {
      let j = i;
      while (j < input.length && !/\s/.test(input[j]) && !"=!(),<>".includes(input[j])) j++;
      tokens.push({ kind: "id", text: input.slice(i, j) });
      i = j;
    }
  }
  return tokens;
}

/** Parse a label selector ("a=b,c in (x,y),!d") into requirements (ANDed). An empty selector selects everything. */
export function parseLabelSelector(selector: string): Requirement[] {
  const tokens = tokenize(selector);
  const reqs: Requirement[] = [];
  let p = 0;
  const peek = () => tokens[p];
  const fail = (what: string): never => {
    throw new SelectorError(`unable to parse requirement: ${what} in selector "${selector}"`);
  };
  const ident = (what: string): string => {
    const t = tokens[p];
    if (!t || t.kind !== "id") return fail(`expected ${what}`);
    p++;
    return t.text;
  };
  while (p < tokens.length) {
    let t = peek();
    if (t.kind === "op" && t.text === "!") {
      p++;
      const key = ident("key after '!'");
      validateKey(key);
      reqs.push({ key, operator: "!", values: [] });
    } else {
      const key = ident("label key");
      validateKey(key);
      t = peek();
      if (!t || (t.kind === "op" && t.text === ",")) {
        reqs.push({ key, operator: "exists", values: [] });
      } else if (t.kind === "id" && (t.text === "in" || t.text === "notin")) {
        p++;
        const operator = t.text;
        const open = peek();
        if (!open || open.kind !== "op" || open.text !== "(") fail(`expected '(' after '${operator}'`);
        p++;
        const values: string[] = [];
        let current: string | undefined;
        const first = peek();
        if (first && first.kind === "op" && first.text === ")") fail(`for '${operator}' operator, values set can't be empty`);
        for (;;) {
          const v = peek();
          if (!v) fail("unterminated value set");
          p++;
          if (v.kind === "id") {
            if (current !== undefined) fail(`expected ',' or ')' after "${current}"`);
            validateValue(v.text);
            current = v.text;
          } else if (v.text === "," || v.text === ")") {
            values.push(current ?? "");
            current = undefined;
            if (v.text === ")") break;
          } else {
            fail(`unexpected '${v.text}' in value set`);
          }
        }
        if (values.length === 0) fail(`for '${operator}' operator, values set can't be empty`);
        reqs.push({ key, operator, values });
      } else if (t.kind === "op" && (t.text === "=" || t.text === "==" || t.text === "!=")) {
        p++;
        const v = peek();
        let value = "";
        if (v && v.kind === "id") {
          value = v.text;
          p++;
        }
        validateValue(value);
        reqs.push({ key, operator: t.text === "!=" ? "!=" : "=", values: [value] });
      } else if (t.kind === "op" && (t.text === "<" || t.text === ">")) {
        p++;
        const value = ident("integer value");
        if (!/^-?\d+$/.test(value)) fail(`for '${t.text}' operator, the value must be an integer`);
        reqs.push({ key, operator: t.text === ">" ? "gt" : "lt", values: [value] });
      } else {
        fail(`unexpected '${t.text}' after key "${key}"`);
      }
    }
    const sep = peek();
    if (sep) {
      if (sep.kind !== "op" || sep.text !== ",") fail(`expected ',' but found '${sep.text}'`);
      p++;
      if (p >= tokens.length) fail("trailing ','");
    }
  }
  return reqs;
}

export function matchesRequirement(r: Requirement, labels: Record<string, string> | undefined): boolean {
  const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = has ? labels![r.key] : undefined;
  switch (r.operator) {
    case "=":
      return has && value === r.values[0];
    case "!=":
      return !has || value !== r.values[0];
    case "in":
      return has && r.values.includes(value!);
    case "notin":
      return !has || !r.values.includes(value!);
    case "exists":
      return has;
    case "!":
      return !has;
    case "gt":
    case "lt": {
      if (!has || !/^-?\d+$/.test(value!)) return false;
      const a = Number(value);
      const b = Number(r.values[0]);
      return r.operator === "gt" ? a > b : a < b;
    }
  }
}

export function matchesLabels(reqs: readonly Requirement[], labels: Record<string, string> | undefined): boolean {
  return reqs.every((r) => matchesRequirement(r, labels));
}

export function labelSelectorPredicate(selector: string | undefined | null): Predicate | undefined {
  if (!selector || !selector.trim()) return undefined;
  const reqs = parseLabelSelector(selector);
  if (reqs.length === 0) return undefined;
  return (o) => matchesLabels(reqs, o.metadata.labels);
}

// ---- field selectors ----

export interface FieldRequirement {
  field: string;
  operator: "=" | "!=";
  value: string;
}

const pathGetter =
  (...path: string[]) =>
  (o: KubeObject): string => {
    let v: unknown = o;
    for (const k of path) v = v && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined;
    return v === undefined || v === null ? "" : String(v);
  };

const COMMON_FIELDS: Record<string, (o: KubeObject) => string> = {
  "metadata.name": pathGetter("metadata", "name"),
  "metadata.namespace": pathGetter("metadata", "namespace"),
};

/** The fields each resource can be selected by (a subset of what the real apiserver supports). */
export const SUPPORTED_FIELDS: Record<Resource, Record<string, (o: KubeObject) => string>> = {
  pods: {
    ...COMMON_FIELDS,
    "spec.nodeName": pathGetter("spec", "nodeName"),
    "spec.schedulerName": pathGetter("spec", "schedulerName"),
    "spec.serviceAccountName": pathGetter("spec", "serviceAccountName"),
    "spec.restartPolicy": pathGetter("spec", "restartPolicy"),
    "status.phase": pathGetter("status", "phase"),
    "status.podIP": pathGetter("status", "podIP"),
    "status.nominatedNodeName": pathGetter("status", "nominatedNodeName"),
  },
  nodes: {
    "metadata.name": pathGetter("metadata", "name"),
    "spec.unschedulable": (o) => String(Boolean((o.spec as { unschedulable?: boolean } | undefined)?.unschedulable)),
  },
  servicemonitors: COMMON_FIELDS,
  podmonitors: COMMON_FIELDS,
  configmaps: COMMON_FIELDS,
  services: COMMON_FIELDS,
  secrets: { ...COMMON_FIELDS, type: (o) => String((o as { type?: unknown }).type ?? "") },
  deployments: COMMON_FIELDS,
  daemonsets: COMMON_FIELDS,
  endpointslices: COMMON_FIELDS,
  endpoints: COMMON_FIELDS,
};

/** Split on an unescaped separator; `\` escapes the next character. */
function splitUnescaped(s: string, sep: string): string[] {
  const parts: string[] = [];
  let cur = "";
  for (let i = 0; i < s.length; i++) {
    if (s[i] === "\\" && i + 1 < s.length) {
      cur += s[i] + s[i + 1];
      i++;
    } else if (s[i] === sep) {
      parts.push(cur);
      cur = "";
    } else cur += s[i];
  }
  parts.push(cur);
  return parts;
}

const unescape = (s: string) => s.replace(/\\(.)/g, "$1");

export function parseFieldSelector(selector: string): FieldRequirement[] {
  const reqs: FieldRequirement[] = [];
  for (const raw of splitUnescaped(selector, ",")) {
    const part = raw.trim();
    if (!part) continue;
    const m = /^((?:[^=!\\]|\\.)+?)\s*(==|!=|=)\s*(.*)$/.exec(part);
    if (!m) throw new SelectorError(`invalid selector: '${selector}'; can't understand '${part}'`);
    reqs.push({ field: m[1].trim(), operator: m[2] === "!=" ? "!=" : "=", value: unescape(m[3]) });
  }
  return reqs;
}

export function fieldSelectorPredicate(selector: string | undefined | null, resource: Resource): Predicate | undefined {
  if (!selector || !selector.trim()) return undefined;
  const reqs = parseFieldSelector(selector);
  if (reqs.length === 0) return undefined;
  const fields = SUPPORTED_FIELDS[resource];
  const checks = reqs.map((r) => {
    const get = fields[r.field];
    if (!get) throw new SelectorError(`field label not supported: ${r.field}`);
    return r.operator === "=" ? (o: KubeObject) => get(o) === r.value : (o: KubeObject) => get(o) !== r.value;
  });
  return (o) => checks.every((c) => c(o));
}

/** AND of predicates; undefined ones are skipped. */
export function allOf(...ps: (Predicate | undefined)[]): Predicate | undefined {
  const list = ps.filter((p): p is Predicate => p !== undefined);
  if (list.length === 0) return undefined;
  if (list.length === 1) return list[0];
  return (o) => list.every((p) => p(o));
}
