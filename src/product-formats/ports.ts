/**
 * Output ports, whichever format the product is written in: the one place that says how an
 * access, a connector or an event names a port (docs/product.md §4).
 */
import { productFormatOf, type OutputPortView } from "./index.js";

export type { OutputPortView };

/** The product's output ports in document order. */
export function outputPorts(product: Record<string, unknown>): OutputPortView[] {
  return productFormatOf(product).outputPorts(product);
}

/**
 * The port an access names: its id (DPS `id`, ODPS `<name>@<version>`), or, in ODPS, just its
 * `<name>` when only one version of that name exists.
 */
export function findOutputPort(product: Record<string, unknown>, ref: string): OutputPortView | undefined {
  const ports = outputPorts(product);
  const exact = ports.find((p) => p.id === ref);
  if (exact) return exact;
  const named = ports.filter((p) => p.version !== undefined && p.name === ref);
  return named.length === 1 ? named[0] : undefined;
}
