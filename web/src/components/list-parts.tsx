import type { ComponentChildren } from "preact";
import { Empty, ErrorBox, Loading, Table } from "../ui.js";

/**
 * What list and detail pages share around their own content: a list's problem, loading, empty text
 * and table; the button that creates one more; the Edit and Delete actions of a resource's page.
 */

/** A list as `useLoad` reads it: its problem, then "Loading…", the empty text, or one table row per item. */
export function ListTable<T>(props: {
  list: { data?: T[]; error?: unknown; loading: boolean };
  empty: ComponentChildren;
  columns: Array<string | false>;
  caption?: string;
  /** Mark the table busy while a new filter is read. */
  busy?: boolean;
  row: (item: T) => ComponentChildren;
}) {
  const { list } = props;
  return (
    <>
      <ErrorBox error={list.error} />
      {list.loading && !list.data ? (
        <Loading />
      ) : list.data?.length === 0 ? (
        <Empty>{props.empty}</Empty>
      ) : (
        <Table columns={props.columns} caption={props.caption} busy={props.busy ? list.loading : undefined}>
          {list.data?.map(props.row)}
        </Table>
      )}
    </>
  );
}

/** A list page's "New …" button, for those who may create. */
export function NewButton({ href, children }: { href: string; children: ComponentChildren }) {
  return (
    <a class="button primary" href={href}>
      {children}
    </a>
  );
}

/** The Edit link and Delete button of a resource's page. */
export function EditAndDelete({ editHref, onDelete }: { editHref: string; onDelete: () => void }) {
  return (
    <>
      <a class="button" href={editHref}>
        Edit
      </a>
      <button type="button" class="danger" onClick={onDelete}>
        Delete
      </button>
    </>
  );
}
