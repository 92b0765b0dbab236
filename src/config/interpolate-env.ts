// `${VAR}` and `${VAR:-default}` from the environment, in the string values of a parsed config.
// Done on values, never on the file's text, so a value holding quotes or `: ` cannot reshape the YAML.
// Only the `${…}` form is read: filter session variables (`$userId`, `$role`) are left alone.
import { toPointer, pointerToDotted, type ConfigProblem } from './config-problem.ts';

export interface Interpolation {
  value: unknown;
  problems: ConfigProblem[];
  /**
   * JSON pointers of the strings that held an expression. Their text may stand for a number or a
   * boolean (`port: ${PORT:-3000}`); validation turns them into one where the schema wants it.
   */
  interpolated: Set<string>;
}

// `$${` is an escaped `${`; `${…}` an expression; a `${` left over never closes.
const EXPRESSION = /\$\$\{|\$\{([^}]*)\}|\$\{/g;
const INNER = /^([A-Za-z_][A-Za-z0-9_]*)(?::-([\s\S]*))?$/;

export function interpolateEnv(tree: unknown, env: NodeJS.ProcessEnv): Interpolation {
  const problems: ConfigProblem[] = [];
  const interpolated = new Set<string>();

  function interpolateString(text: string, segments: (string | number)[]): string {
    if (!text.includes('${')) return text;
    const path = pointerToDotted(toPointer(segments));
    let sawExpression = false;
    const result = text.replace(EXPRESSION, (match: string, inner: string | undefined) => {
      if (match === '$${') return '${';
      if (inner === undefined) {
        problems.push({ path, message: `unclosed \${ in "${text}"` });
        return match;
      }
      const parsed = INNER.exec(inner);
      if (!parsed) {
        problems.push({ path, message: `malformed \${${inner}}: expected \${NAME} or \${NAME:-default}` });
        return match;
      }
      sawExpression = true;
      const name = parsed[1] as string;
      const fallback = parsed[2];
      // `${toString}` must read a variable of that name, not a member every object has.
      const value = Object.hasOwn(env, name) ? env[name] : undefined;
      if (fallback !== undefined) return value === undefined || value === '' ? fallback : value;
      if (value === undefined) {
        problems.push({
          path,
          message: `environment variable ${name} is not set (write \${${name}:-} to make it optional)`,
        });
        return '';
      }
      return value;
    });
    if (sawExpression) interpolated.add(toPointer(segments));
    return result;
  }

  function walk(node: unknown, segments: (string | number)[]): unknown {
    if (typeof node === 'string') return interpolateString(node, segments);
    if (Array.isArray(node)) return node.map((item, index) => walk(item, [...segments, index]));
    if (node !== null && typeof node === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(node)) {
        // defineProperty: a `__proto__` key stays a key instead of replacing the prototype.
        Object.defineProperty(out, key, {
          value: walk(child, [...segments, key]),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
    return node;
  }

  return { value: walk(tree, []), problems, interpolated };
}
