// Small accessible building blocks shared by the pages: alerts, loading and empty states, labelled
// fields, lists of checkboxes, two-step confirmation, copy to clipboard, paging and status badges.
import {
  type Dispatch,
  type ReactNode,
  type SetStateAction,
  useEffect,
  useId,
  useRef,
  useState,
} from 'react';
import { statusLabel } from './format.ts';

export function ErrorNotice(props: { message: string }) {
  if (!props.message) return null;
  return (
    <p className="notice notice-error" role="alert">
      {props.message}
    </p>
  );
}

export function SuccessNotice(props: { message: string }) {
  return (
    <p className="notice notice-success" role="status">
      {props.message}
    </p>
  );
}

export function Loading(props: { what: string }) {
  return (
    <p className="loading" role="status" aria-live="polite">
      Loading {props.what}…
    </p>
  );
}

export function Empty(props: { children: ReactNode }) {
  return <div className="empty">{props.children}</div>;
}

export function PageHeader(props: { title: string; children?: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  // Moving focus to the new page's heading tells keyboard and screen-reader users the page changed.
  useEffect(() => heading.current?.focus(), [props.title]);
  return (
    <header className="page-header">
      <h1 tabIndex={-1} ref={heading}>
        {props.title}
      </h1>
      {props.children}
    </header>
  );
}

export function Field(props: {
  label: string;
  hint?: string;
  children: (id: string, describedBy: string | undefined) => ReactNode;
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      {props.children(id, props.hint ? hintId : undefined)}
      {props.hint ? (
        <small id={hintId} className="hint">
          {props.hint}
        </small>
      ) : null}
    </div>
  );
}

/** A button that asks "Confirm?" in place before acting, so nothing is destroyed by a single click. */
export function ConfirmButton(props: {
  label: string;
  confirmLabel: string;
  onConfirm: () => void | Promise<void>;
  disabled?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirmRef.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <button type="button" className="danger" disabled={props.disabled} onClick={() => setAsking(true)}>
        {props.label}
      </button>
    );
  }
  return (
    <span className="confirm">
      <button
        type="button"
        className="danger"
        ref={confirmRef}
        onClick={async () => {
          setAsking(false);
          await props.onConfirm();
        }}
      >
        {props.confirmLabel}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

/**
 * Checkboxes in a fieldset, one per option, each labelled by its name (as code, or strong) and a hint;
 * `setChosen` receives the ticked names as they change.
 */
export function CheckList<T extends string>(props: {
  legend: string;
  options: readonly { name: string; description: string }[];
  chosen: readonly T[];
  setChosen: Dispatch<SetStateAction<T[]>>;
  nameAs: 'code' | 'strong';
}) {
  const Name = props.nameAs;
  return (
    <fieldset>
      <legend>{props.legend}</legend>
      {props.options.map((option) => (
        <label className="check" key={option.name}>
          <input
            type="checkbox"
            checked={props.chosen.includes(option.name as T)}
            onChange={(event) =>
              props.setChosen((current) =>
                event.target.checked
                  ? [...current, option.name as T]
                  : current.filter((entry) => entry !== option.name),
              )
            }
          />
          <span>
            <Name>{option.name}</Name> <span className="hint">{option.description}</span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}

export function CopyButton(props: { value: string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  return (
    <>
      <button
        type="button"
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(props.value);
            setState('copied');
          } catch {
            setState('failed');
          }
        }}
      >
        {props.label}
      </button>
      <span role="status" className="hint">
        {state === 'copied'
          ? 'Copied.'
          : state === 'failed'
            ? 'Copy failed: select the text and copy it.'
            : ''}
      </span>
    </>
  );
}

export function Pager(props: { page: number; size: number; total: number; onPage: (page: number) => void }) {
  const pages = Math.max(1, Math.ceil(props.total / props.size));
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={props.page <= 1} onClick={() => props.onPage(props.page - 1)}>
        Previous
      </button>
      <span>
        Page {props.page} of {pages} ({props.total} in all)
      </span>
      <button type="button" disabled={props.page >= pages} onClick={() => props.onPage(props.page + 1)}>
        Next
      </button>
    </nav>
  );
}

export function StatusBadge(props: { status: string }) {
  return <span className={`badge status-${props.status}`}>{statusLabel(props.status)}</span>;
}

/**
 * A secret the API shows once (a connection's signing secret): displayed with a copy button until the
 * operator dismisses it; it is kept in this component's state only and is gone once dismissed.
 */
export function SecretOnce(props: { label: string; value: string; note: string; onDismiss: () => void }) {
  return (
    <div className="notice secret-once card" role="status">
      <strong>{props.label}</strong>
      <code>{props.value}</code>
      <p className="hint">{props.note}</p>
      <div className="buttons">
        <CopyButton value={props.value} label="Copy" />
        <button type="button" onClick={props.onDismiss}>
          I have stored it
        </button>
      </div>
    </div>
  );
}

/** An operator's text in other languages: `{<language>: {<field>: text}}`. */
export type Translations = Record<string, Record<string, string>>;

/**
 * A text's translations as JSON, kept as typed until it parses; empty means none. The server names an
 * unknown language or key (422).
 */
export function TranslationsField(props: {
  label: string;
  example: string;
  value: Translations | undefined;
  onChange: (value: Translations | undefined) => void;
}) {
  const [text, setText] = useState(props.value ? JSON.stringify(props.value, null, 2) : '');
  const [problem, setProblem] = useState('');
  const change = (next: string) => {
    setText(next);
    if (next.trim() === '') {
      setProblem('');
      props.onChange(undefined);
      return;
    }
    try {
      const parsed: unknown = JSON.parse(next);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw new Error('not an object');
      setProblem('');
      props.onChange(parsed as Translations);
    } catch {
      setProblem(`Not valid JSON yet; write it as ${props.example}.`);
    }
  };
  return (
    <Field
      label={props.label}
      hint={`In other languages, as JSON: ${props.example}. Missing ones read the text above.`}
    >
      {(id, describedBy) => (
        <>
          <textarea
            id={id}
            aria-describedby={describedBy}
            rows={3}
            spellCheck={false}
            value={text}
            onChange={(event) => change(event.target.value)}
          />
          <ErrorNotice message={problem} />
        </>
      )}
    </Field>
  );
}
