// sealed's board in the browser. It knows no game's rules: the node sends each game's
// board as cells (`grid`) and every act open now as choices (`choices`: the squares a
// click starts from and goes to, the words, what else each names, the text the node
// reads back); these scripts draw them, turn clicks, keys and typing into one of those
// texts, and send it. What a game page shows is the document `sealed show --json`
// prints for this seat (cli/JSON.md, games/src/seat/mod.rs).
//
// Files: the session, the API, the live stream and whether the node answers
// `session.js`; element helpers `ui.js`; the games list and the new game form
// `lists.js`; a game's page `game.js`; its board and the act being built `board.js`;
// the move list, stepping through it, the board turned and the pieces lost
// `moves.js`, with the plain chess they need (check, material) `chess.js` and the
// positions the node gives for stepping back (Chex, Cardmate, Tempête) read back
// `steps.js`;
// Tempête's physical deck — stating a card's effect, answering claims — `physical.js`;
// the players' clocks counting down, Secret Stallmate's period and a result lost on
// time `clocks.js`;
// the sign-in page's script `signin.js`; this one routes and refreshes.
import { api, live, node, again, keepAgain, signOut, SignedOut, NodeDown, downWords } from './session.js';
import { h, toast, short, peopleText, replaceMain } from './ui.js';
import { drawGames, drawNew } from './lists.js';
import { drawGame, lastActWords } from './game.js';
import { Q, resetAct } from './board.js';
import { cardNames, onKey } from './moves.js';

const S = {
  myTurn: new Map(), // game id → whether it was this seat's move, for notifications
  show: null,        // the open game's show document
  why: 'other',      // what asked for the refresh being drawn
  signedOut: false,
};
// The game drawn last: its ply, when that ply was first drawn and what asked for it
// (a test tells a live update from the timer's by it).
window.sealedBoard = { drawnAt: 0, ply: -1, game: null, via: null };

function route() {
  const hash = location.hash || '#/';
  const m = hash.match(/^#\/game\/([0-9a-f]{6,64})$/);
  if (m) return { page: 'game', id: m[1] };
  if (hash === '#/new') return { page: 'new' };
  return { page: 'games' };
}

function signedOut(why) {
  S.signedOut = true;
  document.getElementById('signout').hidden = true;
  document.getElementById('me').textContent = '';
  replaceMain(h('div', {}, h('h1', { text: 'Not signed in' }),
    h('p', { id: 'signed-out', text: why || `Run \`${again()}\` in a terminal and open the login address it prints.` })));
  document.title = 'sealed';
}

function fail(e) {
  if (e instanceof SignedOut) return signedOut(e.message);
  if (e instanceof NodeDown) return showNode(false);
  return toast(e.message, true);
}

// ---- the node's state --------------------------------------------------------------------

function showNode(up) {
  const banner = document.getElementById('node-down');
  const words = document.getElementById('live-words');
  document.getElementById('live').className = up ? '' : 'off';
  words.textContent = up ? 'live' : 'node down';
  banner.hidden = up;
  banner.textContent = up ? '' : `${downWords()} Moves are off until it answers.`;
  document.body.dataset.node = up ? 'up' : 'down';
}

// ---- refreshing ----------------------------------------------------------------------

let refreshing = false;
let more = false;
async function refresh(why) {
  S.why = why || 'other';
  if (S.signedOut) return;
  if (refreshing) { more = true; return; }
  refreshing = true;
  try {
    do {
      more = false;
      await refreshOnce();
    } while (more);
  } catch (e) {
    fail(e);
  } finally {
    refreshing = false;
  }
}

const ctx = {
  decide: async (id, what) => {
    try {
      await api(`/api/games/${id}/${what}`, {});
      toast({ accept: 'accepted', decline: 'declined', withdraw: 'withdrawn' }[what] || what);
      refresh('act');
    } catch (e) { fail(e); }
  },
  propose: async (body) => {
    try {
      const id = await api('/api/new', body);
      toast('proposed');
      location.hash = `#/game/${id}`;
    } catch (e) { fail(e); }
  },
};

const gameCtx = () => ({
  // An act: its text in the game's notation, or a generic command's value
  // ({ generic: 'resign' }), which is sent as that value and never as words.
  send: async (act) => {
    const show = S.show;
    resetAct();
    try {
      if (typeof act === 'string') await api(`/api/games/${show.game}/move`, { text: act, expect: show.ply });
      else await api(`/api/games/${show.game}/generic`, { generic: act.generic, expect: show.ply });
    } catch (e) { fail(e); }
    refresh('act');
  },
  // The same, for a page that shows the node's refusal itself (the physical deck's
  // edits stay on the board): the refusal is thrown, not shown as a passing notice.
  post: async (text) => {
    const show = S.show;
    try {
      await api(`/api/games/${show.game}/move`, { text, expect: show.ply });
    } finally {
      refresh('act');
    }
  },
  fail,
  current: (game) => route().page === 'game' && game.startsWith(route().id),
  drawn: (show) => {
    const b = window.sealedBoard;
    if (b.game !== show.game || b.ply !== show.ply) {
      b.game = show.game; b.ply = show.ply; b.drawnAt = Date.now(); b.via = S.why;
    }
  },
});

async function refreshOnce() {
  const r = route();
  const games = await api('/api/games');
  notifyTurns(games);
  titleFor(games);
  if (r.page === 'games') drawGames(games, ctx);
  else if (r.page === 'new') { if (!document.querySelector('form.new')) await drawNew(ctx); }
  else {
    const show = await api(`/api/games/${r.id}`);
    if (show.variant === 'tempete' && !cardNames.size) await loadCardNames();
    announce(S.show, show);
    if (!S.show || S.show.game !== show.game || S.show.ply !== show.ply || S.show.phase !== show.phase) resetAct();
    S.show = show;
    await drawGame(show, gameCtx());
  }
}

// The open deck's names, for the move list's cards in words (once; a failure leaves
// the numbers).
async function loadCardNames() {
  try {
    for (const c of await api('/api/cards')) cardNames.set(c.card, c.name);
  } catch (e) { /* the numbers stay */ }
}

// A screen reader is told of the opponent's act: the page's polite live region says it
// when the game moved on while this seat waited (or by more than the seat's own act).
function announce(before, show) {
  if (!before || before.game !== show.game || show.ply <= before.ply) return;
  if (before.my_turn && show.ply < before.ply + 2) return;
  const words = lastActWords(show);
  document.getElementById('announce').textContent = words ? `Opponent played ${words}` : 'Your opponent moved';
}

function titleFor(games) {
  const n = games.filter((g) => g.my_turn).length;
  document.title = n ? `(${n}) Your move — sealed` : 'sealed';
}

function notifyTurns(games) {
  for (const g of games) {
    const before = S.myTurn.get(g.game);
    if (before === false && g.my_turn && 'Notification' in window && Notification.permission === 'granted') {
      const here = route().page === 'game' && S.show && S.show.game === g.game;
      if (document.hidden || !here) {
        const n = new Notification(`sealed: your move (${g.variant})`, { body: peopleText(g.players), tag: g.game });
        n.onclick = () => { window.focus(); location.hash = `#/game/${g.game}`; };
      }
    }
    S.myTurn.set(g.game, g.my_turn);
  }
}

// ---- start ---------------------------------------------------------------------------

// When the node last pushed a change: the timer reads the games again only when it has
// been quiet that long (the clocks move without any change in the store).
let lastEvent = 0;

async function start() {
  node.watchers.push((up) => {
    showNode(up);
    // Back: everything is read again (and the game page's moves come back on).
    if (up) refresh('event');
    else if (S.show && route().page === 'game') drawGame(S.show, gameCtx());
  });
  try {
    const me = await api('/api/me');
    keepAgain(me.again);
    document.getElementById('me').textContent = `you: ${short(me.peer)}…`;
  } catch (e) {
    return fail(e);
  }
  showNode(true);
  const out = document.getElementById('signout');
  out.hidden = false;
  out.addEventListener('click', async () => { await signOut(); signedOut(`Signed out. Run \`${again()}\` for a new login address.`); });
  const notify = document.getElementById('notify');
  if ('Notification' in window && Notification.permission === 'default') {
    notify.hidden = false;
    notify.addEventListener('click', async () => { await Notification.requestPermission(); notify.hidden = true; });
  }
  // Before the board's own keys (the capture phase): f turns the board, and the arrows,
  // Home and End step through the moves (on the board, only End, to return).
  document.addEventListener('keydown', (ev) => { if (route().page === 'game') onKey(ev); }, true);
  window.addEventListener('hashchange', () => { resetAct(); Q.focus = null; S.show = null; refresh('nav'); });
  live(() => { lastEvent = Date.now(); refresh('event'); }, signedOut);
  setInterval(() => {
    if (!document.hidden && Date.now() - lastEvent > 9000) refresh('timer');
  }, 10000);
  refresh('start');
}

start();
