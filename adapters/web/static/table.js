// The web table (docs/web.md): draws one viewer's view of a table, pushed over a WebSocket, and
// sends the viewer's presses back. No build step, no library: a plain ES module. Every element
// is built with textContent (names are never parsed as HTML). A replay page embeds its frames
// as `window.GNAV_REPLAY` and steps through them with the same drawing code.

const $ = (tag, cls, text) => {
  const el = document.createElement(tag);
  if (cls) el.className = cls;
  if (text !== undefined && text !== null) el.textContent = String(text);
  return el;
};

// ---------------------------------------------------------------- Telegram (when a Mini App)
const hashParams = new URLSearchParams(location.hash.slice(1));
const tg = window.Telegram && window.Telegram.WebApp ? window.Telegram.WebApp : null;

function telegramInitData() {
  if (tg && tg.initData) return tg.initData;
  return hashParams.get('tgWebAppData') || '';
}

function startParam() {
  const fromTg = tg && tg.initDataUnsafe && tg.initDataUnsafe.start_param;
  if (fromTg) return fromTg;
  const query = new URLSearchParams(location.search);
  return query.get('tgWebAppStartParam') || hashParams.get('tgWebAppStartParam') || '';
}

function applyTheme() {
  let theme = tg && tg.themeParams ? tg.themeParams : null;
  if (!theme && hashParams.get('tgWebAppThemeParams')) {
    try { theme = JSON.parse(hashParams.get('tgWebAppThemeParams')); } catch (e) { theme = null; }
  }
  if (!theme && !tg) return;
  const root = document.documentElement;
  root.classList.add('tg');
  const map = {
    bg_color: '--bg', text_color: '--text', hint_color: '--hint', link_color: '--link',
    button_color: '--button', button_text_color: '--button-text',
    secondary_bg_color: '--second', section_separator_color: '--line',
  };
  for (const [key, name] of Object.entries(map)) {
    if (theme && theme[key]) root.style.setProperty(name, theme[key]);
  }
  if (tg && tg.colorScheme === 'dark') root.classList.add('dark');
  if (tg) { try { tg.ready(); tg.expand(); } catch (e) { /* an old client */ } }
}

// ---------------------------------------------------------------- drawing
function tilesEl(tiles, pressable, press, busy) {
  const box = $('div', 'tiles');
  for (const t of tiles) {
    const choice = pressable.get(t.id);
    const el = choice ? $('button', 'tile can') : $('div', 'tile');
    if (t.tone) el.classList.add(t.tone);
    el.append($('span', '', t.text));
    if (t.by) el.append($('small', '', t.by));
    if (t.note) el.append($('span', 'note', t.note));
    if (choice) {
      el.dataset.token = choice.token;
      el.title = choice.label;
      el.disabled = busy;
      el.addEventListener('click', () => press(choice.token));
    } else if (pressable.size) {
      el.classList.add('off');
    }
    box.append(el);
  }
  return box;
}

function tableEl(data) {
  const wrap = $('div', 'scroll');
  const table = $('table');
  const head = $('tr');
  for (const h of data.head) head.append($('th', '', h));
  table.append(head);
  for (const row of data.rows) {
    const tr = $('tr');
    for (const cell of row) tr.append($('td', '', cell));
    table.append(tr);
  }
  wrap.append(table);
  return wrap;
}

function linesEl(text, blocks) {
  const box = $('div', 'lines');
  let rest = text || '';
  const parts = [];
  for (const block of blocks || []) {
    const at = rest.indexOf(block);
    if (at < 0) continue;
    parts.push([false, rest.slice(0, at)], [true, block]);
    rest = rest.slice(at + block.length);
  }
  parts.push([false, rest]);
  for (const [isBlock, part] of parts) {
    if (isBlock) { box.append($('pre', 'block', part)); continue; }
    for (const line of part.split('\n')) if (line.trim()) box.append($('p', '', line));
  }
  return box;
}

function buttonEl(b, press, busy) {
  const el = $('button', `btn ${b.role || ''}`, b.label);
  el.dataset.token = b.token;
  el.disabled = busy;
  el.addEventListener('click', () => press(b.token));
  return el;
}

/** Draw `view` into `root`. `ctx`: {press(token), busy, notice, reply, replyOk, clockOffset}. */
export function render(root, view, ctx) {
  const words = view.words || {};
  const shapes = view.shapes || {};
  root.replaceChildren();
  const title = $('h1');
  title.append($('span', '', view.game ? view.game[0].toUpperCase() + view.game.slice(1) : ''));
  title.append($('span', 'sub', `#${view.table}`));
  root.append(title);
  if (ctx.notice) root.append($('div', `notice ${ctx.noticeBad ? 'bad' : ''}`, ctx.notice));
  if (view.status === 'closed' && words.closed) root.append($('div', 'notice', words.closed));
  const grid = $('div', 'grid');
  const play = $('section', 'play');
  const info = $('section', 'info');
  grid.append(play, info);
  root.append(grid);

  const seats = $('ul', 'seats');
  for (const s of view.seats || []) {
    const li = $('li', '', (s.turn ? '▶ ' : '') + s.name);
    if (s.bot) li.append($('small', 'bot', ' bot'));
    if (s.turn) li.classList.add('turn');
    if (s.you) li.classList.add('you');
    if (!s.in) li.classList.add('out');
    seats.append(li);
  }
  play.append(seats);
  for (const f of shapes.facts || []) play.append($('div', 'facts', f));
  if (view.deadline) {
    const clock = $('div', 'clock');
    clock.dataset.deadline = String(view.deadline - (ctx.clockOffset || 0));
    clock.dataset.left = words.left || '{seconds} s';
    play.append(clock);
  }
  const choices = view.choices || [];
  const byArg = new Map();
  const ownIds = new Set(((shapes.own && shapes.own.tiles) || []).map((t) => t.id));
  for (const c of choices) if (c.arg !== null && ownIds.has(c.arg)) byArg.set(c.arg, c);
  if (shapes.middle && shapes.middle.tiles && shapes.middle.tiles.length) {
    play.append($('h2', '', shapes.middle.title || words.table));
    play.append(tilesEl(shapes.middle.tiles, new Map(), ctx.press, true));
  }
  if (shapes.own && shapes.own.tiles) {
    play.append($('h2', '', shapes.own.title || words.mine));
    play.append(tilesEl(shapes.own.tiles, byArg, ctx.press, ctx.busy));
  }
  for (const h of shapes.shown || []) {
    play.append($('h2', '', h.title));
    play.append(tilesEl(h.tiles, new Map(), ctx.press, true));
  }
  const rest = choices.filter((c) => !(c.arg !== null && byArg.has(c.arg)));
  const rowsBox = $('div', 'choices');
  const rows = new Map();
  for (const c of rest) {
    if (!rows.has(c.row)) rows.set(c.row, $('div', 'row'));
    rows.get(c.row).append(buttonEl(c, ctx.press, ctx.busy));
  }
  for (const key of [...rows.keys()].sort((a, b) => a - b)) rowsBox.append(rows.get(key));
  if ((view.actions || []).length) {
    const row = $('div', 'row');
    for (const a of view.actions) row.append(buttonEl(a, ctx.press, ctx.busy));
    rowsBox.append(row);
  }
  if (rowsBox.childElementCount) play.append(rowsBox);
  play.append($('div', `reply ${ctx.replyOk === false ? 'bad' : ''}`, ctx.reply || ''));
  if (shapes.columns) play.append(tableEl(shapes.columns));

  info.append($('h2', '', words.log || ''));
  const log = linesEl(view.text, view.blocks);
  log.classList.add('log');
  info.append(log);
  if (shapes.sheet && shapes.sheet.rows && shapes.sheet.rows.length) {
    info.append($('h2', '', words.sheet || ''));
    info.append(tableEl(shapes.sheet));
  }
  tick(root);
}

function tick(root) {
  const clock = root.querySelector('.clock');
  if (!clock) return;
  const left = Math.max(0, Math.round(Number(clock.dataset.deadline) - Date.now() / 1000));
  clock.textContent = clock.dataset.left.replace('{seconds}', String(left));
}

// ---------------------------------------------------------------- a live table
function live(root) {
  const parts = location.pathname.split('/').filter(Boolean);
  const query = new URLSearchParams(location.search);
  const table = parts[0] === 't' ? parts[1] : query.get('t') || startParam();
  const link = query.get('k') || '';
  const init = telegramInitData();
  const state = {
    view: null, busy: false, kind: '', reply: '', replyOk: null, replyAt: 0, clockOffset: 0,
  };
  let socket = null;
  let pressId = 0;
  let retry = 1000;

  const draw = () => {
    if (!state.view) return;
    // The notice is a word of the view's language: a refused proof, or a spectator's page.
    const kind = state.kind || (state.view.you === null ? 'spectator' : '');
    const notice = kind ? (state.view.words || {})[kind] : '';
    render(root, state.view, { ...state, notice, noticeBad: kind === 'denied', press });
  };
  function press(token) {
    if (state.busy || !socket || socket.readyState !== WebSocket.OPEN) return;
    state.busy = true;
    draw();
    socket.send(JSON.stringify({ press: token, id: ++pressId }));
  }
  function connect() {
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    socket = new WebSocket(`${scheme}://${location.host}/ws`);
    socket.addEventListener('open', () => {
      retry = 1000;
      socket.send(JSON.stringify({ hello: { table: table || null, link, init } }));
    });
    socket.addEventListener('message', (event) => {
      const msg = JSON.parse(event.data);
      if (msg.type === 'hello') {
        state.kind = msg.denied ? 'denied' : msg.you ? '' : 'spectator';
      } else if (msg.type === 'state') {
        // A press's answer ("Done.") stays until the table moves on after it; a refusal
        // until the next press.
        if (state.replyOk && msg.view.version > state.replyAt) state.reply = '';
        state.view = msg.view;
        window.gnavView = msg.view; // what the page shows, for tools and tests
        state.clockOffset = msg.view.now - Date.now() / 1000;
        state.busy = false;
        draw();
      } else if (msg.type === 'reply') {
        state.busy = false;
        state.reply = msg.text;
        state.replyOk = msg.ok;
        state.replyAt = state.view ? state.view.version : 0;
        draw();
      } else if (msg.type === 'gone') {
        root.replaceChildren($('p', 'hint', '404 · no such table'));
      }
    });
    socket.addEventListener('close', () => {
      state.busy = false;
      setTimeout(connect, retry); // reconnect after a drop; the server pushes, nobody polls
      retry = Math.min(retry * 2, 30000);
    });
  }
  if (!table && !init) {
    root.replaceChildren($('p', 'hint', 'No table: open it from the chat.'));
    return;
  }
  connect();
  setInterval(() => tick(root), 1000); // the local countdown only
}

// ---------------------------------------------------------------- a replay
function replay(root, frames) {
  let at = 0;
  const show = () => {
    const frame = frames.steps[at];
    render(root, frame, { press: () => {}, busy: true, notice: '', reply: '' });
    const bar = $('div', 'steps');
    const mk = (label, to) => {
      const b = $('button', 'btn', label);
      b.disabled = to < 0 || to >= frames.steps.length || to === at;
      b.addEventListener('click', () => { at = to; show(); });
      return b;
    };
    bar.append(mk('«', 0), mk('‹', at - 1), $('span', 'hint', `${at + 1} / ${frames.steps.length}`),
      mk('›', at + 1), mk('»', frames.steps.length - 1));
    root.prepend(bar);
  };
  document.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowRight' && at < frames.steps.length - 1) { at += 1; show(); }
    if (e.key === 'ArrowLeft' && at > 0) { at -= 1; show(); }
  });
  show();
}

applyTheme();
const root = document.getElementById('app');
if (window.GNAV_REPLAY) replay(root, window.GNAV_REPLAY);
else if (root) live(root);
