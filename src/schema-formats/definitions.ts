/**
 * Linear normalization (docs/product.md §4): a type that a specification names once and uses many
 * times (an Avro named type, a JSON Schema `$ref` target) is described in full at its first use
 * only. Every later use, and every recursive use, is a field that carries `ref` — the name of
 * one entry of the result's `definitions` — instead of a fresh expansion. The output therefore
 * grows with the specification, never with the number of paths through it.
 */
import type { NormalizedField } from "./types.js";

/** What a use site keeps for itself: the rest of a referring field comes from the definition. */
export interface UseSite {
  name: string;
  physicalType: string;
  required: boolean;
  description?: string;
}

export class Definitions<K = unknown> {
  /** The field of each type's first use, by the type's identity; complete once its walk returns. */
  private readonly first = new Map<K, { label: string; field: NormalizedField; physicalType?: string }>();
  /** Labels of the types that were referred to, in the order they were first referred to. */
  private readonly referred: K[] = [];
  private readonly isReferred = new Set<K>();
  private readonly done = new Set<K>();

  /** True when the type was met before (possibly still being described, higher up: recursion). */
  has(key: K): boolean {
    return this.first.has(key);
  }

  /**
   * Records the first use of a type, before its nested fields are described.
   * @param physicalType the type's own spelling, when the use site spells it differently
   */
  begin(key: K, label: string, field: NormalizedField, physicalType?: string): void {
    if (!this.first.has(key)) this.first.set(key, { label, field, physicalType });
  }

  /** Records that a type's first use is completely described. */
  end(key: K): void {
    this.done.add(key);
  }

  /**
   * True for a completely described type with nothing nested: describing it again costs no
   * more than referring to it, and keeps simple fields (a shared string format) self-contained.
   */
  isSimple(key: K): boolean {
    const entry = this.first.get(key);
    if (!entry || !this.done.has(key)) return false;
    const f = entry.field;
    return f.fields === undefined && f.items === undefined && f.symbols === undefined && f.ref === undefined;
  }

  /** A later use of a type met before: refers to its definition instead of describing it again. */
  refer(key: K, use: UseSite): NormalizedField {
    const entry = this.first.get(key)!;
    if (!this.isReferred.has(key)) {
      this.isReferred.add(key);
      this.referred.push(key);
    }
    const field: NormalizedField = { name: use.name, type: entry.field.type, physicalType: use.physicalType, required: use.required };
    if (use.description !== undefined) field.description = use.description;
    field.ref = entry.label;
    return field;
  }

  /**
   * The definitions of every type referred to, built once every first use is complete. The
   * description moves from the first use into the definition, and the first use refers to it
   * like every other use: each description appears once in the result, wherever it is used.
   */
  list(): NormalizedField[] | undefined {
    if (this.referred.length === 0) return undefined;
    return this.referred.map((key) => {
      const { label, field, physicalType } = this.first.get(key)!;
      const definition: NormalizedField = { name: label, type: field.type, physicalType: physicalType ?? field.physicalType, required: true };
      for (const member of ["fields", "items", "symbols"] as const) {
        if (field[member] === undefined) continue;
        (definition as unknown as Record<string, unknown>)[member] = field[member];
        delete field[member];
      }
      if (field.ref !== undefined) definition.ref = field.ref;
      field.ref = label;
      return definition;
    });
  }
}

/** How many fields a model list and its definitions hold, nested ones included. */
export function countFields(groups: ReadonlyArray<ReadonlyArray<NormalizedField> | undefined>): number {
  let count = 0;
  const stack: NormalizedField[] = [];
  for (const group of groups) if (group) stack.push(...group);
  while (stack.length > 0) {
    const field = stack.pop()!;
    count++;
    if (field.fields) for (const f of field.fields) stack.push(f);
    if (field.items) stack.push(field.items);
  }
  return count;
}
