/**
 * Watches a sync agent's or hub's broker connection (their status(): `online`, `lastError`) and
 * says on stderr when it changes, since the MQTT client retries silently:
 *
 *   sync: cannot reach the broker at mqtt://h:1883: connect ECONNREFUSED 127.0.0.1:1883; retrying
 *   sync: connected to the broker at mqtt://h:1883
 *
 * A new error text while offline is said again; an attempt that has produced neither a connection
 * nor an error after SILENT_CONNECT_MS (a host that does not answer) is said too.
 */
export const LINK_POLL_MS = 250;
export const SILENT_CONNECT_MS = 5000;

export type LinkState = { readonly online: boolean; readonly lastError?: string };

export type LinkWatch = {
  /** Checks now (also done every LINK_POLL_MS; onChange runs when `online` or `lastError` changed). */
  check(): LinkState;
  /** Milliseconds since the epoch when the connection last went up or down. */
  readonly since: number;
  stop(): void;
};

export function watchLink(who: string, url: string, state: () => LinkState, say: (line: string) => void, onChange: () => void = () => undefined): LinkWatch {
  const started = Date.now();
  let online = false;
  let since = started;
  let saidError: string | undefined;
  let saidSilent = false;
  let lastError: string | undefined;
  const check = (): LinkState => {
    const now = state();
    if (now.online && !online) {
      say(`${who}: connected to the broker at ${url}`);
      saidError = undefined;
      saidSilent = false;
    } else if (!now.online) {
      if (online) say(`${who}: lost the broker at ${url}${now.lastError ? `: ${now.lastError}` : ''}; retrying`);
      else if (now.lastError !== undefined && now.lastError !== saidError) say(`${who}: cannot reach the broker at ${url}: ${now.lastError}; retrying`);
      else if (now.lastError === undefined && !saidSilent && Date.now() - started >= SILENT_CONNECT_MS) {
        say(`${who}: cannot reach the broker at ${url}: no answer after ${SILENT_CONNECT_MS / 1000} s; retrying`);
        saidSilent = true;
      }
      if (now.lastError !== undefined) saidError = now.lastError;
    }
    const changed = now.online !== online || now.lastError !== lastError;
    if (now.online !== online) since = Date.now();
    online = now.online;
    lastError = now.lastError;
    if (changed) onChange();
    return now;
  };
  const timer = setInterval(check, LINK_POLL_MS);
  return {
    check,
    get since() {
      return since;
    },
    stop: () => clearInterval(timer),
  };
}
