import { DuplicateTool, ToolNotFound } from './errors.js';
import type { ToolSpec } from './spec.js';

/** The tools an application declares, by unique name. */
export class ToolRegistry {
  readonly #specs = new Map<string, ToolSpec<any, any>>();

  constructor(specs: readonly ToolSpec<any, any>[] = []) {
    for (const spec of specs) this.register(spec);
  }

  register(spec: ToolSpec<any, any>): this {
    if (this.#specs.has(spec.name)) throw new DuplicateTool(spec.name);
    this.#specs.set(spec.name, spec);
    return this;
  }

  get(name: string): ToolSpec<any, any> {
    const spec = this.#specs.get(name);
    if (!spec) throw new ToolNotFound(name);
    return spec;
  }

  has(name: string): boolean {
    return this.#specs.has(name);
  }

  /** The tools integration `name` exports (a spec without `targets` goes everywhere). */
  forTarget(name: string): ToolSpec<any, any>[] {
    return this.all().filter((spec) => spec.exportsTo(name));
  }

  all(): ToolSpec<any, any>[] {
    return [...this.#specs.values()];
  }
}
