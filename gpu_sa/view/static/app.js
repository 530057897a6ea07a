"use strict";
// gpu-sa view: the page's logic. The server does every computation (server.py, api.py); this
// file draws the board, steps through the rounds it returned, and draws the annealer's records.
//
// A candidate set arrives as a hexadecimal bitmask (bit d set = digit d + 1 possible): order 8
// has 64 digits, more bits than a JavaScript number holds exactly.

const EXAMPLES = [
  ["9x9: an easy puzzle (the rules alone solve it)",
   "..237.9....75684.2.8..9....1...4.8..2.4...7.6..6.2...1....5..1.5.19326....3.862.."],
  ["9x9: 17 givens",
   ".......1.4.........2...........5.4.7..8...3....1.9....3..4..2...5.1........8.6..."],
  ["9x9: the rules alone stall (needs the search)",
   "7.....4...2..7..8...3..8..9...5..3...6..2..9...1..7..6...3..9...3..4..6...9..1..5"],
  ["4x4", "1...\n..3.\n.4..\n...2"],
  ["16x16: Lloyd & Amos, 45 % givens (numbers format)",
   "0 0 0 0 2 15 3 0 12 6 7 10 0 0 0 0\n0 12 15 0 0 0 5 0 0 0 4 9 0 0 6 0\n0 8 13 14 7 9 6 0 15 2 16 0 0 0 0 5\n7 3 2 0 0 11 0 0 1 8 0 0 0 4 0 16\n" +
   "0 10 0 0 0 0 0 0 5 0 8 0 14 12 4 0\n3 13 0 0 0 12 0 0 9 0 10 7 0 0 0 0\n11 0 8 0 13 7 1 0 0 0 0 0 15 0 10 0\n15 0 0 12 8 10 0 0 0 0 0 3 0 0 5 7\n" +
   "0 0 14 0 12 2 0 0 4 0 0 8 0 0 0 10\n0 0 11 8 0 0 10 0 0 14 6 0 4 0 0 0\n0 0 0 0 6 0 0 0 10 5 13 15 0 1 2 0\n13 0 0 0 9 4 0 11 7 0 1 2 0 0 14 0\n" +
   "16 0 0 13 0 5 0 2 6 10 0 14 12 0 7 15\n6 0 0 0 0 1 8 0 2 7 12 0 10 16 13 0\n0 5 0 15 10 0 0 0 0 0 3 0 2 0 0 4\n0 2 7 10 0 0 0 12 0 13 0 4 5 0 0 0"],
  ["25x25: Lloyd & Amos, 45 % givens (numbers format)",
   "10 11 22 0 0 18 0 3 0 5 4 24 0 0 13 0 0 12 0 0 0 0 17 0 0\n" +
   "0 3 21 1 0 0 11 0 19 9 12 0 5 10 15 7 0 18 0 0 0 0 0 0 0\n" +
   "5 0 9 0 19 0 0 0 0 21 0 0 0 18 14 23 0 0 0 0 7 1 11 0 0\n" +
   "0 0 8 14 0 1 0 0 2 15 0 0 20 0 11 17 10 6 0 3 0 0 5 0 0\n" +
   "6 0 18 0 0 20 0 0 16 0 0 0 19 0 1 11 22 5 9 0 12 3 0 10 15\n" +
   "18 1 0 11 12 0 6 0 8 10 14 23 17 0 7 4 0 3 0 24 0 0 9 5 16\n" +
   "0 0 6 0 17 25 0 0 0 0 2 0 21 0 3 0 0 20 10 0 22 0 13 0 24\n" +
   "0 5 3 21 0 0 0 4 0 14 11 13 9 20 0 2 0 0 1 0 0 0 8 0 0\n" +
   "0 0 0 0 10 12 0 19 3 2 5 0 16 0 0 0 18 0 0 0 0 0 0 1 21\n" +
   "0 0 15 0 14 0 9 0 0 13 0 10 0 1 0 25 0 21 0 0 0 0 6 0 0\n" +
   "0 25 24 6 13 17 0 0 22 0 0 12 15 0 0 0 0 0 0 0 0 4 0 9 1\n" +
   "0 0 7 0 8 0 12 10 0 19 0 0 11 0 17 0 0 0 4 1 0 15 23 0 25\n" +
   "0 0 0 0 0 0 0 0 0 0 0 9 0 14 0 0 0 0 0 25 0 0 20 17 6\n" +
   "0 0 0 12 11 0 0 0 21 0 0 0 0 0 0 0 7 9 0 2 0 24 0 3 0\n" +
   "0 0 16 0 0 9 0 0 0 1 0 7 0 22 0 6 0 0 24 8 0 0 0 0 5\n" +
   "0 0 0 17 5 0 0 2 18 11 9 16 3 23 0 0 8 15 6 0 21 0 0 4 0\n" +
   "8 7 0 16 25 5 10 15 0 0 21 0 0 0 0 0 3 23 18 0 19 20 24 22 9\n" +
   "0 19 20 22 18 8 0 0 0 0 0 1 24 15 12 0 14 11 0 17 6 13 3 16 0\n" +
   "23 0 0 0 0 14 16 20 0 0 6 0 0 0 0 24 1 0 0 0 0 0 18 0 0\n" +
   "0 0 0 10 0 0 21 0 0 12 18 11 4 5 0 0 25 0 0 0 0 0 14 15 23\n" +
   "0 0 0 0 0 2 1 0 0 8 15 0 7 0 0 0 0 0 0 12 23 5 0 0 17\n" +
   "0 8 1 0 0 0 0 25 0 18 0 20 22 2 0 0 11 0 13 0 0 0 12 6 0\n" +
   "0 0 12 2 0 11 20 0 0 0 1 3 0 0 16 10 0 0 0 0 4 0 0 13 0\n" +
   "3 13 5 0 16 10 0 9 0 17 0 0 0 0 21 0 0 0 7 23 25 0 0 0 20\n" +
   "0 14 0 23 0 21 0 0 7 4 8 0 12 13 0 0 0 0 0 0 0 11 2 0 3"],
];

const $ = (id) => document.getElementById(id);
const state = {
  loadedText: null, // the text the board shows
  puzzle: null, // {order, side, givens (1-based, 0 empty), note}
  rounds: [], // round 0 from loading; every round once Rules is first pressed (complete = true)
  complete: false,
  round: 0, // the round shown: 0 = the givens before any rule
  run: null, // the annealing run in flight: its id
  records: [],
  loads: 0, // loads asked for: an answer to an older one than the last is dropped (the text changed since)
  typing: null, // the timer that loads the text once the user pauses
};

// ---- talking to the server -------------------------------------------------------------

async function post(path, body) {
  const response = await fetch(path, {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body),
  });
  const payload = await response.json();
  if (!response.ok || payload.error) throw new Error(payload.error || `gpu-sa: error: HTTP ${response.status}`);
  return payload;
}

function showMessage(text, kind) {
  const box = $("message");
  box.textContent = text || "";
  box.className = text ? kind : "";
}

function failed(error) {
  showMessage(error.message, "error");
}

// Whatever was shown for another text goes: the search's verdict, the rules' changes, the anneal's chart and
// status. Nothing on the page may describe a puzzle other than the one in the box.
function clearResults() {
  state.records = [];
  drawChart();
  $("anneal-status").textContent = "";
  $("round-info").textContent = "";
  $("changes").replaceChildren();
}

// The text in the box, loaded (its round 0 drawn) unless it already is; false when it is not a puzzle.
async function ensureLoaded() {
  // Loading now: the typing pause's load is not wanted any more. Left to fire while this load is on its way, it
  // took a newer ticket, and this load (a click on Anneal, Solve or Rules within 0.4 s of typing) answered false:
  // the click did nothing.
  clearTimeout(state.typing);
  const text = $("puzzle-text").value;
  if (state.loadedText === text && state.puzzle) return true;
  const ticket = ++state.loads;
  let answer = null, error = null;
  try {
    answer = await post("/api/load", {text});
  } catch (failure) {
    error = failure;
  }
  if (ticket !== state.loads || $("puzzle-text").value !== text) return false; // the text changed meanwhile
  clearResults();
  if (error) {
    Object.assign(state, {loadedText: null, puzzle: null, rounds: [], complete: false, round: 0});
    renderEmpty();
    failed(error);
    return false;
  }
  Object.assign(state, {loadedText: text, puzzle: answer.puzzle, rounds: [answer.round], complete: false, round: 0});
  showMessage(answer.puzzle.note, "note");
  showRound();
  return true;
}

// Typing: the board of the previous text goes at once, and the new text is loaded once the typing pauses.
function textChanged() {
  $("example").value = "";
  if ($("puzzle-text").value === state.loadedText && state.puzzle) return;
  state.loadedText = null;
  state.puzzle = null;
  state.loads++; // an answer still on its way is for an older text
  clearResults();
  renderEmpty();
  showMessage("", "");
  $("board").dataset.state = "typing";
  clearTimeout(state.typing);
  state.typing = setTimeout(ensureLoaded, 400);
}

// ---- the board ------------------------------------------------------------------------------

function digitsOf(hex) {
  const digits = [];
  for (let i = 0; i < hex.length; i++) {
    const nibble = parseInt(hex[hex.length - 1 - i], 16);
    for (let bit = 0; bit < 4; bit++) if (nibble & (1 << bit)) digits.push(4 * i + bit + 1);
  }
  return digits;
}

function renderEmpty() {
  const board = $("board");
  board.replaceChildren();
  board.dataset.state = "empty";
  $("round-info").textContent = "";
  $("changes").replaceChildren();
}

// Cells as large as the board panel allows (at most 52 px), so that the whole board is in view beside the panels.
function fitCells() {
  if (!state.puzzle) return;
  const panel = $("board-panel").getBoundingClientRect();
  const width = document.documentElement.clientWidth - panel.left - 24;
  const height = window.innerHeight - Math.max(panel.top, 0) - 16;
  const size = Math.floor((Math.min(width, height) - 4) / state.puzzle.side);
  $("board").style.setProperty("--cell", `${Math.max(9, Math.min(52, size))}px`);
}

function boardCells() {
  const {order, side} = state.puzzle;
  const board = $("board");
  fitCells();
  board.style.gridTemplateColumns = `repeat(${side}, var(--cell))`;
  const cells = [];
  for (let i = 0; i < side * side; i++) {
    const cell = document.createElement("div");
    const r = Math.floor(i / side), c = i % side;
    cell.className = "cell" + (c % order === 0 && c ? " box-left" : "") + (r % order === 0 && r ? " box-top" : "");
    cell.dataset.cell = String(i);
    cell.title = `r${r + 1}c${c + 1}`;
    cells.push(cell);
  }
  board.replaceChildren(...cells);
  return cells;
}

function valueSpan(digit) {
  const span = document.createElement("span");
  span.className = "value";
  span.textContent = String(digit);
  return span;
}

// Every cell's candidates after ``round`` (gpu_sa.puzzles.sudoku.exact.steps.Round.to_dict(), masks in hex), with
// what the round placed and removed coloured by rule.
function renderCandidates(round) {
  const {order, side, givens} = state.puzzle;
  const cells = boardCells();
  const placed = new Map(), removed = new Map();
  for (const p of round.placed) placed.set(p.cell, p.rule);
  for (const event of round.removed) {
    if (!removed.has(event.cell)) removed.set(event.cell, new Map());
    for (const digit of event.digits) removed.get(event.cell).set(digit, event.rule);
  }
  const pencilMarks = order <= 4;
  cells.forEach((cell, i) => {
    const digits = digitsOf(round.masks[i]);
    cell.dataset.candidates = digits.join(" ");
    const gone = removed.get(i) || new Map();
    if (givens[i]) {
      cell.classList.add("given");
      cell.dataset.value = String(givens[i]);
      cell.append(valueSpan(givens[i]));
      return;
    }
    cell.dataset.value = digits.length === 1 ? String(digits[0]) : "";
    if (digits.length === 0) cell.classList.add("empty-set");
    if (placed.has(i)) cell.classList.add("placed-now", `rule-${placed.get(i)}`);
    cell.title += `: ${digits.join(" ") || "no candidate left"}` +
      (gone.size ? ` (removed: ${[...gone].map(([d, rule]) => `${d} by ${rule}`).join(", ")})` : "");
    if (digits.length === 1 && gone.size === 0) {
      cell.classList.add("found");
      cell.append(valueSpan(digits[0]));
    } else if (pencilMarks) {
      const marks = document.createElement("div");
      marks.className = side > 9 ? "marks two-digit" : "marks";
      marks.style.gridTemplateColumns = `repeat(${order}, 1fr)`;
      marks.style.setProperty("--marks-side", String(order));
      const open = new Set(digits);
      for (let d = 1; d <= side; d++) {
        const span = document.createElement("span");
        if (open.has(d)) span.textContent = String(d);
        else if (gone.has(d)) {
          span.textContent = String(d);
          span.className = `removed rule-${gone.get(d)}`;
        }
        marks.append(span);
      }
      cell.append(marks);
    } else {
      const count = document.createElement("span");
      count.className = "count" + (gone.size ? " shrunk" : "");
      count.textContent = String(digits.length);
      cell.append(count);
    }
  });
  $("board").dataset.state = `round-${round.round}`;
}

// A full grid (1-based digits): givens in bold, the rest in the solver's colour.
function renderGrid(values, stateName) {
  const {givens} = state.puzzle;
  boardCells().forEach((cell, i) => {
    cell.classList.add(givens[i] ? "given" : "found");
    cell.dataset.value = String(values[i]);
    cell.dataset.candidates = String(values[i]);
    cell.append(valueSpan(values[i]));
  });
  $("board").dataset.state = stateName;
}

// ---- the rules' rounds and the search ----------------------------------------------------

const where = (cell) => `r${Math.floor(cell / state.puzzle.side) + 1}c${cell % state.puzzle.side + 1}`;
const unitName = (unit) => (unit ? `${unit.kind} ${unit.index + 1}` : "");
const OUTCOMES = {
  fixpoint: "nothing changed: the rules are stuck here, only the search can go on (press Solution)",
  solved: "solved: every cell holds one digit and no rule objects",
};

// The round's headline and outcome, and its changes grouped by cause, as `gpu-sa exact --steps` words them.
function showRound() {
  const round = state.rounds[state.round];
  renderCandidates(round);
  let headline;
  if (round.round === 0) {
    const set = round.masks.filter((hex) => digitsOf(hex).length === 1).length;
    headline = `round 0 (givens): ${set} of ${round.masks.length} cells set`;
  } else {
    const perRule = Object.entries(round.removed_by_rule);
    const total = perRule.reduce((sum, [, count]) => sum + count, 0);
    headline = `round ${round.round}: ${round.placed.length} cell${round.placed.length === 1 ? "" : "s"} placed, ` +
      `${total} candidates removed (${perRule.map(([rule, count]) => `${rule} ${count}`).join(", ")})`;
  }
  const outcome = round.status === "contradiction" ? `contradiction: ${round.contradiction.text}`
    : OUTCOMES[round.status];
  $("round-info").textContent = headline + (outcome ? `. ${outcome}.` : ".");
  const lines = [];
  if (round.placed.length) {
    lines.push("placed: " + round.placed.map((p) => `${where(p.cell)}=${p.digit} (${p.rule})`).join(", "));
  }
  const groups = new Map();
  for (const event of round.removed) {
    const key = JSON.stringify([event.rule, unitName(event.unit), event.by]);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(event);
  }
  for (const [key, events] of groups) {
    const [rule, unit, by] = JSON.parse(key);
    const cause = rule === "exclusivity" ? `${where(by[0])} is set`
      : rule === "uniqueness" ? `hidden single in ${unit}` : `pair ${by.map(where).join(" ")} in ${unit}`;
    lines.push(`${rule}: ${cause}: ` + events.map((e) => `${where(e.cell)}(-${e.digits.join(",")})`).join(" "));
  }
  $("changes").replaceChildren(...lines.map((line) => {
    const item = document.createElement("li");
    item.textContent = line;
    return item;
  }));
}

async function stepRules() {
  if (!(await ensureLoaded())) return;
  if (!state.complete) {
    const text = state.loadedText;
    try {
      const rounds = (await post("/api/rounds", {text})).rounds;
      if (state.loadedText !== text) return; // another puzzle was loaded meanwhile
      state.rounds = rounds;
      state.complete = true;
    } catch (error) {
      return failed(error);
    }
  }
  if (state.round + 1 >= state.rounds.length) {
    showRound();
    $("round-info").textContent += ` (the rules end at round ${state.rounds.length - 1})`;
    return;
  }
  state.round += 1;
  showRound();
}

async function previousRound() {
  if (!(await ensureLoaded())) return;
  if (state.round > 0) state.round -= 1;
  showRound();
}

async function resetRounds() {
  if (!(await ensureLoaded())) return;
  state.round = 0;
  showRound();
}

async function solve() {
  if (!(await ensureLoaded())) return;
  $("round-info").textContent = "Searching…";
  const text = state.loadedText;
  try {
    const answer = await post("/api/solve", {text});
    if (state.loadedText !== text) return; // another puzzle was loaded meanwhile: this answer is not its
    $("changes").replaceChildren();
    const effort = `${answer.nodes.toLocaleString("en")} branches, ${(answer.seconds * 1e3).toFixed(2)} ms`;
    if (answer.solution) renderGrid(answer.solution, "solved-exact");
    $("round-info").textContent = `Exact search (seed ${answer.seed}): ${answer.verdict} (${effort}).`;
  } catch (error) {
    failed(error);
  }
}

// ---- annealing, live ------------------------------------------------------------------------

function runMoves(records) {
  // moves per chain since the run began: each trial starts where the previous one ended
  let offset = 0, lastTrial = null, lastMoves = 0;
  return records.map((r) => {
    if (lastTrial !== null && r.trial !== lastTrial) offset += lastMoves;
    lastTrial = r.trial;
    lastMoves = r.moves;
    return offset + r.moves;
  });
}

function drawChart() {
  const canvas = $("chart"), g = canvas.getContext("2d");
  const W = canvas.width, H = canvas.height, left = 52, right = 52, top = 22, gap = 34;
  const panel = (H - top - gap - 28) / 2;
  g.clearRect(0, 0, W, H);
  g.font = "12px system-ui, sans-serif";
  const records = state.records;
  canvas.dataset.records = String(records.length);
  const xs = runMoves(records);
  const xMax = Math.max(1, ...xs);
  const X = (x) => left + (W - left - right) * x / xMax;
  const costMax = Math.max(1, ...records.map((r) => Math.max(r.best_cost, r.mean_cost)));
  const costY = (c) => top + panel - panel * Math.log10(1 + c) / Math.log10(1 + costMax);
  const lowTop = top + panel + gap;
  const accMax = Math.max(0.05, ...records.map((r) => r.acceptance));
  const accY = (a) => lowTop + panel - panel * a / accMax;
  const temps = records.map((r) => r.temperature).filter((t) => t > 0);
  const tLow = Math.min(...temps, 1), tHigh = Math.max(...temps, tLow * 1.0001);
  const tempY = (t) => lowTop + panel - panel * Math.log(t / tLow) / Math.log(tHigh / tLow);

  g.strokeStyle = "#c9cfdb";
  g.fillStyle = "#6b7385";
  for (const y0 of [top, lowTop]) g.strokeRect(left, y0, W - left - right, panel);
  g.fillText("cost (log scale): best —, mean - -", left, top - 6);
  g.fillText("acceptance — (left), temperature · · (right)", left, lowTop - 6);
  for (const c of [0, 1, 3, 10, 30, 100, 300, 1000, 3000, 10000].filter((c) => c <= costMax)) {
    g.fillText(String(c), 8, costY(c) + 4);
  }
  for (const a of [0, accMax / 2, accMax]) g.fillText(`${(100 * a).toFixed(0)} %`, 8, accY(a) + 4);
  if (temps.length) {
    g.fillText(tHigh.toPrecision(3), W - right + 4, lowTop + 10);
    g.fillText(tLow.toPrecision(3), W - right + 4, lowTop + panel);
  }
  if (records.length) {
    g.fillText("0", left, H - 10);
    g.fillText(`${xMax.toLocaleString("en")} moves per chain`, W - right - 170, H - 10);
  }

  const line = (ys, colour, dash, step) => {
    if (!records.length) return;
    g.beginPath();
    g.setLineDash(dash);
    g.strokeStyle = colour;
    g.lineWidth = 1.8;
    records.forEach((r, i) => {
      const x = X(xs[i]), y = ys(r);
      if (i === 0) g.moveTo(x, y);
      else if (step) { g.lineTo(x, ys(records[i - 1])); g.lineTo(x, y); } else g.lineTo(x, y);
    });
    g.stroke();
    g.setLineDash([]);
  };
  line((r) => costY(r.best_cost), "#1552b8", [], true);
  line((r) => costY(r.mean_cost), "#1552b8", [5, 4], false);
  line((r) => accY(r.acceptance), "#d9480f", [], false);
  if (temps.length) line((r) => tempY(r.temperature), "#2b8a3e", [2, 3], false);
}

function setAnnealing(running) {
  $("anneal").disabled = running;
  $("stop").disabled = !running;
  // the puzzle stays the one annealed until the run ends (Stop ends it)
  for (const id of ["rules", "previous", "reset", "solve", "load", "puzzle-text", "example"]) $(id).disabled = running;
}

function describeProgress(r) {
  const trial = r.trial > 1 ? `trial ${r.trial} · ` : "";
  return `${r.seconds.toFixed(1)} s · ${trial}${r.moves.toLocaleString("en")} moves per chain · ` +
    `T ${r.temperature.toPrecision(3)} · best cost ${r.best_cost} · mean ${r.mean_cost.toFixed(1)} · ` +
    `acceptance ${(100 * r.acceptance).toFixed(1)} % · ${r.proposals_per_second.toPrecision(3)} proposals/s`;
}

function onRunEvent(event) {
  const status = $("anneal-status");
  if (event.event === "start") {
    state.run = event.run;
    status.textContent = `Running ${event.chains} chains on ${event.backend}, move ${event.move}, seed ${event.seed}: ` +
      "compiling and starting (seconds, the first time)…";
  } else if (event.event === "progress") {
    state.records.push(event);
    drawChart();
    status.textContent = describeProgress(event);
  } else if (event.event === "result") {
    const how = `${event.chains} chains x ${event.moves.toLocaleString("en")} moves on ${event.backend}, seed ` +
      `${event.seed}, ${event.trials} trial${event.trials === 1 ? "" : "s"}; setup ${event.setup_seconds.toFixed(2)} s`;
    if (event.solved) {
      renderGrid(event.solution, "solved-anneal");
      status.textContent = `Solved in ${event.seconds.toFixed(2)} s by chain ${event.chain} after ` +
        `${event.chain_moves.toLocaleString("en")} moves (${how}).`;
    } else {
      renderGrid(event.best, "best-anneal");
      status.textContent = `Not solved (${event.stopped}): best cost ${event.cost}, shown (${how}).`;
    }
    $("round-info").textContent = "";
    $("changes").replaceChildren();
  } else if (event.event === "stopped") {
    status.textContent = `Stopped (${event.why}) after ${(event.moves || 0).toLocaleString("en")} moves per chain ` +
      `in trial ${event.trial || 1}; best cost ${event.best_cost ?? "-"}.`;
  } else if (event.event === "error") {
    failed(new Error(event.error));
  }
}

async function anneal() {
  if (!(await ensureLoaded())) return;
  state.records = [];
  drawChart();
  setAnnealing(true);
  $("anneal-status").textContent = "Starting…";
  let other = null; // another page's (or client's) anneal holds the server: Stop ends it
  try {
    const response = await fetch("/api/anneal", {
      method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify({text: state.loadedText, move: $("move").value, chains: $("chains").value,
                            seed: $("seed").value.trim(), time_limit: $("time-limit").value}),
    });
    if (!response.ok) {
      const payload = await response.json();
      other = payload.run || null;
      throw new Error(payload.error);
    }
    const reader = response.body.getReader(), decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const {value, done} = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, {stream: true});
      let newline;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        onRunEvent(JSON.parse(buffer.slice(0, newline)));
        buffer = buffer.slice(newline + 1);
      }
    }
  } catch (error) {
    failed(error);
  } finally {
    state.run = other;
    setAnnealing(false);
    $("stop").disabled = !other;
  }
}

async function stopRun() {
  // asked before the stop is sent: this page's own run may end (and enable Anneal) before the answer comes
  const another = !$("anneal").disabled;
  if (state.run) {
    $("anneal-status").textContent += " Stopping…";
    await post("/api/stop", {run: state.run}).catch(failed);
  }
  if (another) { // nothing streams here to end it
    state.run = null;
    $("stop").disabled = true;
    $("anneal-status").textContent = "The other run is stopping; press Anneal to start yours.";
  }
}

// ---- start ----------------------------------------------------------------------------------

async function start() {
  const select = $("example");
  select.add(new Option("your own (typed or pasted)", ""));
  EXAMPLES.forEach(([label], i) => select.add(new Option(label, String(i))));
  select.addEventListener("change", () => {
    if (select.value === "") return;
    $("puzzle-text").value = EXAMPLES[Number(select.value)][1];
    ensureLoaded();
  });
  $("puzzle-text").addEventListener("input", textChanged);
  window.addEventListener("resize", fitCells);
  $("puzzle-text").value = EXAMPLES[0][1];
  select.value = "0";
  $("load").addEventListener("click", ensureLoaded);
  $("rules").addEventListener("click", stepRules);
  $("previous").addEventListener("click", previousRound);
  $("reset").addEventListener("click", resetRounds);
  $("solve").addEventListener("click", solve);
  $("anneal").addEventListener("click", anneal);
  $("stop").addEventListener("click", stopRun);
  try {
    const info = await (await fetch("/api/info")).json();
    for (const move of info.moves) $("move").add(new Option(move, move, move === info.default_move,
                                                            move === info.default_move));
    $("chains").value = info.default_chains;
    $("chains").max = info.max_chains;
    $("time-limit").value = info.default_time_limit;
    $("backend").textContent = `annealing on ${info.backend} (${info.backend_why})`;
  } catch (error) {
    failed(new Error("gpu-sa: error: the server does not answer"));
  }
  drawChart();
  await ensureLoaded();
  document.body.dataset.ready = "1";
}

start();
