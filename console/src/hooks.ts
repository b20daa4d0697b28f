// Loading state for API reads: data, the API's error sentence, a reload, and optional polling that stops
// when the component goes away or polling is switched off.
import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from './api.ts';

export interface Resource<T> {
  data: T | undefined;
  error: string;
  loading: boolean;
  reload(): Promise<void>;
}

export function errorText(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * Loads `load()` now and whenever `key` changes. With `pollMs` (a number, or a function of the data that
 * answers a number or undefined), loads again at that interval; a failed poll shows its error and keeps
 * the last data.
 */
export function useResource<T>(
  load: () => Promise<T>,
  key: string,
  pollMs?: number | ((data: T | undefined) => number | undefined),
): Resource<T> {
  const [state, setState] = useState<{ key: string | undefined; data: T | undefined; error: string }>({
    key: undefined,
    data: undefined,
    error: '',
  });
  const loadRef = useRef(load);
  const keyRef = useRef(key);
  const generation = useRef(0);
  useEffect(() => {
    loadRef.current = load;
    keyRef.current = key;
  });

  const reload = useCallback(async () => {
    const mine = ++generation.current;
    const loadingKey = keyRef.current;
    try {
      const value = await loadRef.current();
      if (mine === generation.current) setState({ key: loadingKey, data: value, error: '' });
    } catch (caught) {
      if (mine !== generation.current) return;
      setState((previous) => ({
        key: loadingKey,
        data: previous.key === loadingKey ? previous.data : undefined,
        error: errorText(caught),
      }));
    }
  }, []);

  useEffect(() => {
    void reload();
  }, [key, reload]);

  const current = state.key === key;
  const data = current ? state.data : undefined;
  const interval = typeof pollMs === 'function' ? pollMs(data) : pollMs;
  useEffect(() => {
    if (!interval) return;
    const timer = setInterval(() => void reload(), interval);
    return () => clearInterval(timer);
  }, [interval, reload, key]);

  return { data, error: current ? state.error : '', loading: !current, reload };
}

/** Runs an action, exposing its pending state and the API's error sentence. */
export function useAction() {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState('');
  const run = useCallback(async (action: () => Promise<unknown>): Promise<boolean> => {
    setPending(true);
    setError('');
    try {
      await action();
      return true;
    } catch (caught) {
      setError(errorText(caught));
      return false;
    } finally {
      setPending(false);
    }
  }, []);
  return { pending, error, setError, run };
}

/** The current time, ticking every `everyMs` (for countdowns). */
export function useNow(everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
