import { get, type Certification } from "../api.js";
import { Badge, useLoad } from "../ui.js";

/** The certifications a data product holds: those whose tag it carries. */
export function ProductCertifications({ tags }: { tags: readonly string[] }) {
  const certifications = useLoad(() => get<Certification[]>("/api/certifications"), []);
  const held = (certifications.data ?? []).filter((c) => tags.includes(c.tag));
  if (held.length === 0) return null;
  return (
    <p aria-label="Certifications">
      {held.map((c) => (
        <Badge key={c.id} tone="ok">
          {`${c.name} certified`}
        </Badge>
      ))}
    </p>
  );
}
