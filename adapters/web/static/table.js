// The web table (docs/web.md): draws one viewer's view of a table, pushed over a WebSocket, and
// sends the viewer's presses back. No build step, no library: a plain ES module. Every element
// is built with textContent (names are never parsed as HTML). A replay page embeds its frames
// as a JSON data block (`<script type="application/json" id="replay">`, never run: the page
// keeps its strict policy) and steps through them with the same drawing code.

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
// What the page keeps between two drawings: whether the log follows its end (it does until the
// reader scrolls up), the cards on the table (to move a new one from its player, and a finished
// trick to its taker), and which control had the keyboard focus.
const memory = { follow: true, top: 0, trick: [], tricks: -1, seats: [] };
const moving = () => !window.matchMedia('(prefers-reduced-motion: reduce)').matches;

/** `name` isolated from the text around it (bidirectional text: a name written right to left
 * never reorders its line). */
function nameEl(name) {
  return $('bdi', '', name);
}

/** A line with each of `names` isolated (longest first, so "Bob" never splits "Bobby"). */
function lineEl(tag, line, names) {
  const el = $(tag);
  const sorted = [...new Set(names.filter(Boolean))].sort((a, b) => b.length - a.length);
  let rest = line;
  while (rest) {
    let at = -1;
    let hit = '';
    for (const n of sorted) {
      const i = rest.indexOf(n);
      if (i >= 0 && (at < 0 || i < at)) { at = i; hit = n; }
    }
    if (at < 0) { el.append(rest); break; }
    if (at) el.append(rest.slice(0, at));
    el.append(nameEl(hit));
    rest = rest.slice(at + hit.length);
  }
  return el;
}

function tileEl(t, choice, press, busy, by) {
  const el = choice ? $('button', 'tile can') : $('div', 'tile');
  if (t.tone) el.classList.add(t.tone);
  const label = t.label || (choice && choice.label) || t.text;
  const face = $('span', 'face', t.text);
  face.setAttribute('aria-hidden', 'true');
  el.append(face);
  if (t.note) {
    const note = $('span', 'note', t.note);
    note.setAttribute('aria-hidden', 'true');
    el.append(note);
  }
  if (by) {
    const small = $('small');
    small.setAttribute('aria-hidden', 'true');
    small.append(nameEl(by));
    el.append(small);
  }
  if (choice) {
    el.type = 'button';
    el.dataset.token = choice.token;
    el.dataset.key = `tile:${t.id}`;
    el.setAttribute('aria-label', label);
    if (busy) el.setAttribute('aria-disabled', 'true');
    el.addEventListener('click', () => press(choice.token));
  } else {
    el.setAttribute('role', 'img');
    el.setAttribute('aria-label', label);
  }
  return el;
}

function tilesEl(tiles, pressable, press, busy) {
  const box = $('div', 'tiles');
  for (const t of tiles) {
    const el = tileEl(t, pressable.get(t.id), press, busy);
    if (!pressable.get(t.id) && pressable.size) el.classList.add('off');
    box.append(el);
  }
  return box;
}

function tableEl(data, label, names) {
  const wrap = $('div', 'sheet');
  wrap.setAttribute('role', 'region');
  wrap.setAttribute('aria-label', label);
  wrap.tabIndex = 0; // scrolled sideways by the keyboard too
  const table = $('table');
  const head = $('tr');
  for (const h of data.head) {
    const th = $('th');
    th.scope = 'col';
    th.append(lineEl('span', h, names));
    head.append(th);
  }
  table.append(head);
  for (const row of data.rows) {
    const tr = $('tr');
    row.forEach((cell, i) => {
      const td = i === 0 ? $('th', '', cell) : $('td', '', cell);
      if (i === 0) td.scope = 'row';
      tr.append(td);
    });
    table.append(tr);
  }
  wrap.append(table);
  return wrap;
}

function linesEl(text, blocks, names) {
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
    for (const line of part.split('\n')) if (line.trim()) box.append(lineEl('p', line, names));
  }
  return box;
}

function buttonEl(b, press, busy) {
  const el = $('button', `btn ${b.role || ''}`, b.label);
  el.type = 'button';
  el.dataset.token = b.token;
  el.dataset.key = `btn:${b.arg ?? ''}:${b.label}`;
  if (busy) el.setAttribute('aria-disabled', 'true');
  el.addEventListener('click', () => press(b.token));
  return el;
}

/** Where seat `i` of `n` sits on the oval, the viewer's seat (`at`) nearest: percent x, y. */
function around(i, n, at, radius) {
  const angle = Math.PI / 2 + ((i - at + n) % n) * (2 * Math.PI / n);
  return [50 + radius[0] * Math.cos(angle), 50 + radius[1] * Math.sin(angle)];
}

function seatEl(s, i, view, shapes, words, names) {
  const li = $('li', 'seat');
  li.dataset.seat = String(i);
  const who = $('div', 'who');
  if (s.turn) who.append('▶ ');
  who.append(nameEl(s.name));
  const tags = [];
  if (s.you) tags.push(words.you);
  if (s.bot) tags.push(words.bot);
  if (!s.in) tags.push(words.out);
  if (s.turn) tags.push(words.turn);
  if (tags.filter(Boolean).length) who.append($('span', 'tag', `(${tags.filter(Boolean).join(', ')})`));
  li.append(who);
  if (s.turn) li.classList.add('turn');
  if (s.you) li.classList.add('you');
  if (!s.in) li.classList.add('out');
  const seat = (shapes.seats || [])[i];
  if (seat && seat.facts && seat.facts.length) {
    const facts = $('ul', 'facts');
    for (const f of seat.facts) {
      const item = $('li');
      if (f.sym) {
        const sym = $('span', 'sym', f.sym);
        sym.setAttribute('aria-hidden', 'true');
        item.append(sym);
      }
      item.append(f.text);
      facts.append(item);
    }
    li.append(facts);
  }
  const held = (shapes.hands || [])[i];
  if (held && held.length) li.append(tilesEl(held, new Map(), () => {}, true));
  return li;
}

/** Draw `view` into `root`. `ctx`: {press(token), busy, notice, reply, replyOk, clockOffset}. */
export function render(root, view, ctx) {
  const words = view.words || {};
  const shapes = view.shapes || {};
  const seats = view.seats || [];
  const names = seats.map((s) => s.name);
  const game = words.game || view.game || '';
  // What to keep from the drawing before: the log's place, the focus, the cards' places.
  const oldLog = root.querySelector('.log');
  if (oldLog) {
    memory.follow = oldLog.scrollTop + oldLog.clientHeight >= oldLog.scrollHeight - 4;
    memory.top = oldLog.scrollTop;
  }
  const active = document.activeElement;
  const focusKey = active && root.contains(active) ? active.dataset.key : null;
  const before = [...root.querySelectorAll('.trick .tile')].map((el) => ({
    key: el.dataset.key, rect: el.getBoundingClientRect(), el: el.cloneNode(true),
  }));

  document.documentElement.lang = view.language || document.documentElement.lang || 'en';
  const mine = view.you !== null && view.you !== undefined ? seats[view.you] : null;
  const yourTurn = Boolean(mine && mine.turn && (view.choices || []).length);
  document.title = `${yourTurn ? `▶ ${words.your_turn} · ` : ''}${game} · ${words.title || ''}`
    + ` #${view.table}`;

  root.replaceChildren();
  const title = $('h1');
  title.append($('span', '', game));
  title.append($('span', 'sub', `${words.title || ''} #${view.table}`));
  root.append(title);
  if (ctx.notice) root.append($('div', `notice ${ctx.noticeBad ? 'bad' : ''}`, ctx.notice));
  if (view.status === 'closed' && words.closed) root.append($('div', 'notice', words.closed));
  if (yourTurn) {
    const cue = $('div', 'yourturn', `▶ ${words.your_turn}`);
    cue.setAttribute('role', 'status');
    root.append(cue);
  }
  const board = $('div', 'board');
  const play = $('section', 'play');
  const info = $('section', 'info');
  board.append(play, info);
  root.append(board);

  // The table: the seats around it, the facts and the cards on it in the middle.
  const felt = $('div', 'felt');
  felt.setAttribute('role', 'group');
  felt.setAttribute('aria-label', words.table || '');
  const ring = $('ul', 'ring');
  ring.setAttribute('aria-label', words.seats || '');
  const at = mine ? view.you : 0;
  seats.forEach((s, i) => {
    const li = seatEl(s, i, view, shapes, words, names);
    const [x, y] = around(i, seats.length, at, [39, 41]);
    li.style.setProperty('--x', x.toFixed(1));
    li.style.setProperty('--y', y.toFixed(1));
    ring.append(li);
  });
  felt.append(ring);
  const center = $('div', 'center');
  for (const f of shapes.facts || []) {
    const fact = lineEl('p', f, names);
    fact.className = 'facts';
    center.append(fact);
  }
  if (view.deadline) {
    const clock = $('div', 'clock');
    clock.dataset.deadline = String(view.deadline - (ctx.clockOffset || 0));
    clock.dataset.left = words.left || '{seconds} s';
    center.append(clock);
  }
  // The newest lines of the log, at the table too (on a phone the log is below the fold).
  const newest = (view.text || '').split('\n').filter((x) => x.trim()).slice(-2);
  if (newest.length && view.status !== 'lobby') {
    const latest = $('div', 'latest');
    latest.setAttribute('aria-hidden', 'true'); // the log says it to a screen reader
    for (const line of newest) latest.append(lineEl('p', line, names));
    play.append(latest);
  }
  felt.append(center);
  const trick = $('div', 'trick');
  const counts = new Map();
  for (const t of (shapes.middle && shapes.middle.tiles) || []) {
    const seat = t.seat ?? names.indexOf(t.by);
    const n = (counts.get(seat) || 0);
    counts.set(seat, n + 1);
    const el = tileEl(t, null, ctx.press, true, t.by);
    el.dataset.key = `${seat}:${t.id}:${n}`;
    el.dataset.seat = String(seat);
    const [x, y] = around(seat, seats.length, at, [21, 24]);
    el.style.setProperty('--x', (x + n * 4).toFixed(1));
    el.style.setProperty('--y', y.toFixed(1));
    trick.append(el);
  }
  felt.append(trick);
  play.prepend(felt);

  // The viewer's own hand and choices.
  const hand = $('div', 'hand');
  if (yourTurn) hand.classList.add('active');
  const choices = view.choices || [];
  const byArg = new Map();
  const ownIds = new Set(((shapes.own && shapes.own.tiles) || []).map((t) => t.id));
  for (const c of choices) if (c.arg !== null && ownIds.has(c.arg)) byArg.set(c.arg, c);
  if (shapes.own && shapes.own.tiles) {
    hand.append($('h2', '', shapes.own.title || words.mine));
    hand.append(tilesEl(shapes.own.tiles, byArg, ctx.press, ctx.busy));
  }
  for (const h of shapes.shown || []) {
    hand.append($('h2', '', h.title));
    hand.append(tilesEl(h.tiles, new Map(), ctx.press, true));
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
  if (rowsBox.childElementCount) hand.append(rowsBox);
  const reply = $('div', `reply ${ctx.replyOk === false ? 'bad' : ''}`, ctx.reply || '');
  reply.setAttribute('role', 'status');
  hand.append(reply);
  play.append(hand);

  // The log (it follows its end unless the reader scrolled up) and the score sheet.
  const logTitle = $('h2', '', words.log || '');
  logTitle.id = 'log-title';
  info.append(logTitle);
  // The round's whole log where there is one (the text is the table message: state first).
  const log = view.log && view.log.length
    ? linesEl(view.log.join('\n'), [], names)
    : linesEl(view.text, view.blocks, names);
  log.classList.add('log');
  log.setAttribute('role', 'log');
  log.setAttribute('aria-labelledby', 'log-title');
  log.tabIndex = 0; // scrolled by the keyboard too
  info.append(log);
  if (shapes.sheet && shapes.sheet.rows && shapes.sheet.rows.length) {
    info.append($('h2', '', words.sheet || ''));
    info.append(tableEl(shapes.sheet, words.sheet || '', names));
  }
  log.scrollTop = memory.follow ? log.scrollHeight : memory.top;
  if (focusKey) {
    const again = root.querySelector(`[data-key="${CSS.escape(focusKey)}"]`);
    if (again) again.focus({ preventScroll: true });
  }
  animate(root, before, shapes);
  tick(root);
}

/** A new card moves from its player to its place; a finished trick moves to its taker. */
function animate(root, before, shapes) {
  const tricks = shapes.tricks ?? -1;
  const taker = shapes.taker;
  const known = new Set(before.map((b) => b.key));
  const go = moving();
  if (go) {
    for (const el of root.querySelectorAll('.trick .tile')) {
      if (known.has(el.dataset.key)) continue;
      const from = root.querySelector(`.seat[data-seat="${el.dataset.seat}"]`);
      if (!from) continue;
      const a = from.getBoundingClientRect();
      const b = el.getBoundingClientRect();
      const dx = a.left + a.width / 2 - (b.left + b.width / 2);
      const dy = a.top + a.height / 2 - (b.top + b.height / 2);
      el.animate(
        [{ translate: `${dx}px ${dy}px`, opacity: 0.4 }, { translate: '0 0', opacity: 1 }],
        { duration: 260, easing: 'ease-out' },
      );
    }
    const finished = memory.tricks >= 0 && tricks > memory.tricks && taker !== null
      && taker !== undefined;
    const to = finished ? root.querySelector(`.seat[data-seat="${taker}"]`) : null;
    if (to && before.length) {
      const t = to.getBoundingClientRect();
      for (const b of before) {
        const ghost = b.el;
        ghost.classList.add('ghost');
        ghost.removeAttribute('aria-label');
        ghost.setAttribute('aria-hidden', 'true');
        ghost.style.left = `${b.rect.left}px`;
        ghost.style.top = `${b.rect.top}px`;
        ghost.style.width = `${b.rect.width}px`;
        ghost.style.height = `${b.rect.height}px`;
        ghost.style.transform = 'none';
        document.body.append(ghost);
        const dx = t.left + t.width / 2 - (b.rect.left + b.rect.width / 2);
        const dy = t.top + t.height / 2 - (b.rect.top + b.rect.height / 2);
        const run = ghost.animate(
          [{ translate: '0 0', opacity: 1 }, { translate: `${dx}px ${dy}px`, opacity: 0.2 }],
          { duration: 420, easing: 'ease-in', delay: 150 },
        );
        run.finished.then(() => ghost.remove(), () => ghost.remove());
      }
    }
  }
  memory.tricks = tricks;
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
  const steps = frames.steps;
  let at = 0;
  const nextDeal = () => {
    const deal = steps[at].deal ?? 0;
    for (let i = at + 1; i < steps.length; i += 1) if ((steps[i].deal ?? 0) !== deal) return i;
    return steps.length - 1;
  };
  const show = () => {
    const frame = steps[at];
    const words = frame.words || {};
    render(root, frame, { press: () => {}, busy: true, notice: '', reply: '' });
    document.title = frames.title || document.title;
    const bar = $('nav', 'steps');
    bar.setAttribute('aria-label', words.replay || '');
    const mk = (text, to, label, key) => {
      const b = $('button', 'btn', text);
      b.type = 'button';
      b.dataset.key = `step:${key}`;
      b.setAttribute('aria-label', label || text);
      b.disabled = to < 0 || to >= steps.length || to === at;
      b.addEventListener('click', () => { at = to; show(); });
      return b;
    };
    const count = (words.count || '{n} / {total}')
      .replace('{n}', String(at + 1)).replace('{total}', String(steps.length));
    const counter = $('span', 'hint', `${at + 1} / ${steps.length}`);
    counter.setAttribute('aria-label', count);
    counter.setAttribute('role', 'status');
    bar.append(mk('«', 0, words.step_first, 'first'), mk('‹', at - 1, words.step_back, 'back'),
      counter, mk('›', at + 1, words.step_next, 'next'),
      mk('»', nextDeal(), words.step_deal, 'deal'));
    const focused = document.activeElement && document.activeElement.dataset
      ? document.activeElement.dataset.key : null;
    root.prepend(bar);
    if (focused && focused.startsWith('step:')) {
      const again = bar.querySelector(`[data-key="${focused}"]`);
      if (again && !again.disabled) again.focus();
      else bar.querySelector('button:not(:disabled)')?.focus();
    }
  };
  document.addEventListener('keydown', (e) => {
    if (e.target && e.target.closest && e.target.closest('button')) return;
    if (e.key === 'ArrowRight' && at < steps.length - 1) { at += 1; show(); }
    if (e.key === 'ArrowLeft' && at > 0) { at -= 1; show(); }
  });
  show();
}

function replayFrames() {
  const block = document.getElementById('replay');
  if (!block) return null;
  try { return JSON.parse(block.textContent); } catch (e) { return null; }
}

applyTheme();
const root = document.getElementById('app');
const frames = replayFrames();
if (frames) replay(root, frames);
else if (root) live(root);
