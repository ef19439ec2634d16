import { DuplicateTool, ToolNotFound } from './errors.js';
import type { AnyToolSpec } from './spec.js';

/** The tools an application declares, by unique name. */
export class ToolRegistry {
  readonly #specs = new Map<string, AnyToolSpec>();

  constructor(specs: readonly AnyToolSpec[] = []) {
    for (const spec of specs) this.register(spec);
  }

  register(spec: AnyToolSpec): this {
    if (this.#specs.has(spec.name)) throw new DuplicateTool(spec.name);
    this.#specs.set(spec.name, spec);
    return this;
  }

  get(name: string): AnyToolSpec {
    const spec = this.#specs.get(name);
    if (!spec) throw new ToolNotFound(name);
    return spec;
  }

  has(name: string): boolean {
    return this.#specs.has(name);
  }

  /** The tools integration `name` exports (a spec without `targets` goes everywhere). */
  forTarget(name: string): AnyToolSpec[] {
    return this.all().filter((spec) => spec.exportsTo(name));
  }

  all(): AnyToolSpec[] {
    return [...this.#specs.values()];
  }
}
