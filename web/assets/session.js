// The session and the node. The session is a secret this page keeps in its own
// origin's storage (scheme, host and port: another local server cannot read it, and a
// second board in the same browser keeps its own) and sends as an Authorization header
// with every request — the live stream too, read with fetch, since an EventSource
// cannot send a header. Whether the node answers is watched here: a request that gets
// no answer at all means the node (and its board) is down.

const KEY = 'sealed.session';
const AGAIN = 'sealed.again';

export class SignedOut extends Error {}
export class NodeDown extends Error {}

// What to run for a new login address, as the node said it at sign-in.
export const again = () => localStorage.getItem(AGAIN) || 'sealed ui';
const secret = () => localStorage.getItem(KEY);

// Whether the node answers, and who wants to know when that changes.
export const node = { up: true, watchers: [] };

function nodeIs(up) {
  if (node.up === up) return;
  node.up = up;
  for (const w of node.watchers) w(up);
}

export function downWords() {
  return `Nothing answers at ${location.host}: your node is stopped, or runs without its board. ` +
    `Run \`${again()}\` in a terminal (it starts the board of a running node, or runs the node); ` +
    'this page reconnects by itself.';
}

function headers() {
  const s = secret();
  if (!s) throw new SignedOut(`Not signed in: run \`${again()}\` in a terminal and open the login address it prints.`);
  return { Authorization: `Bearer ${s}` };
}

async function call(path, opts) {
  try {
    return await fetch(path, opts);
  } catch (_) {
    nodeIs(false);
    throw new NodeDown(downWords());
  }
}

// A request of the board's API: its JSON answer, or an error that says whose fault
// (SignedOut, NodeDown, or the node's refusal).
export async function api(path, body) {
  const opts = { headers: headers(), cache: 'no-store' };
  if (body !== undefined) {
    opts.method = 'POST';
    opts.headers['Content-Type'] = 'application/json';
    opts.body = JSON.stringify(body);
  }
  const res = await call(path, opts);
  nodeIs(true);
  const text = await res.text();
  if (res.status === 401) throw new SignedOut(text);
  let value = null;
  try { value = text ? JSON.parse(text) : null; } catch (_) { value = text; }
  if (!res.ok) throw new Error((value && value.error) || text || res.statusText);
  return value;
}

// A download with the session (a link cannot carry the header): fetched, then saved
// from memory under the name the board gives it.
export async function download(path) {
  const res = await call(path, { headers: headers(), cache: 'no-store' });
  if (res.status === 401) throw new SignedOut(await res.text());
  if (!res.ok) throw new Error(await res.text());
  const name = ((res.headers.get('Content-Disposition') || '').match(/filename="([^"]+)"/) || [])[1] || 'download';
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

export async function signOut() {
  try { await api('/api/signout', {}); } catch (_) { /* signed out here all the same */ }
  localStorage.removeItem(KEY);
}

// Keeps the session and the command the sign-in page carries (signin.js).
export function keep(session, command) {
  localStorage.setItem(KEY, session);
  if (command) localStorage.setItem(AGAIN, command);
}

export function keepAgain(command) {
  if (command) localStorage.setItem(AGAIN, command);
}

// The live stream: `onChange` on each change the node commits (and once on every
// (re)connection, for what happened while away); `onSignedOut` with the reason when
// the session is refused. Reconnects by itself, quickly at first.
export function live(onChange, onSignedOut) {
  let wait = 250;
  const run = async () => {
    for (;;) {
      let res = null;
      try {
        res = await fetch('/api/events', { headers: headers(), cache: 'no-store' });
      } catch (e) {
        if (e instanceof SignedOut) return onSignedOut(e.message);
        nodeIs(false);
      }
      if (res && res.status === 401) return onSignedOut(await res.text());
      if (res && res.ok && res.body) {
        nodeIs(true);
        wait = 250;
        try {
          const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
          let buf = '';
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buf += value;
            let at;
            while ((at = buf.indexOf('\n\n')) >= 0) {
              const block = buf.slice(0, at);
              buf = buf.slice(at + 2);
              if (/^event: ?change$/m.test(block)) onChange();
            }
          }
        } catch (_) { /* the stream broke: reconnect */ }
      }
      await new Promise((r) => setTimeout(r, wait));
      wait = Math.min(wait * 2, 3000);
    }
  };
  run();
}
