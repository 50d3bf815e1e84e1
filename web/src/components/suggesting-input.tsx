/** A text input with suggested values (a datalist): one of them is picked, or any other typed. */
export function SuggestingInput(props: { id: string; list: string; value: string; onValue: (value: string) => void; suggestions: readonly string[] }) {
  return (
    <>
      <input id={props.id} value={props.value} onInput={(e) => props.onValue(e.currentTarget.value)} list={props.list} />
      <datalist id={props.list}>
        {props.suggestions.map((s) => (
          <option key={s} value={s} />
        ))}
      </datalist>
    </>
  );
}
