/* sheepsim replay: draws one game, step by step, from the JSON document in
   #replay-data (its format is described in sheepsim/report/replay.py). It loads
   nothing: no network, no other file. */
(function () {
  "use strict";
  var doc = JSON.parse(document.getElementById("replay-data").textContent);
  var $ = function (id) { return document.getElementById(id); };
  var zoneById = {};
  doc.zones.forEach(function (z) { zoneById[z.id] = z; });

  // the full value of every zone after every step (the document holds the changes)
  var states = [];
  var cur = {};
  doc.steps.forEach(function (step) {
    var next = Object.assign({}, cur);
    Object.keys(step.set).forEach(function (id) {
      next[id] = zoneById[id].kind === "hex" ? Object.assign({}, cur[id] || {}, step.set[id]) : step.set[id];
    });
    states.push(next);
    cur = next;
  });
  var n = doc.steps.length;
  var k = 0;
  var showHidden = false;

  var ENTITIES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
  function esc(s) { return String(s).replace(/[&<>"']/g, function (c) { return ENTITIES[c]; }); }
  function seatColour(q) { return doc.seats[q] ? doc.seats[q].colour : "#777"; }

  // --- cards --------------------------------------------------------------------------
  function faceStyle(f) {
    var cols = f.colours;
    var bg = cols[0];
    if (cols.length > 1) {
      bg = "linear-gradient(135deg," + cols.map(function (c, i) {
        return c + " " + (100 * i / cols.length) + "% " + (100 * (i + 1) / cols.length) + "%";
      }).join(",") + ")";
    }
    return "background:" + bg + ";color:" + f.fg;
  }
  function card(id, cls) {
    var f = doc.faces[doc.cards[id]];
    var big = f.short ? '<span class="short' + (f.short.length > 2 ? " long" : "") + '">' + esc(f.short) + "</span>" : "";
    var band = f.band ? '<span class="band">' + esc(f.band) + "</span>" : "";
    return '<div class="card' + (cls ? " " + cls : "") + '" style="' + faceStyle(f) + '" title="' + esc(f.name) +
      '">' + big + band + "</div>";
  }
  function back(cls) { return '<div class="card back' + (cls ? " " + cls : "") + '"></div>'; }
  var EMPTY = '<div class="card vacant"></div>';
  function minis(cards) {
    return cards.length ? '<div class="minis">' + cards.map(function (c) { return card(c, "mini"); }).join("") +
      "</div>" : "";
  }
  function plural(n, word) { return n + " " + word + (n === 1 ? "" : "s"); }

  function cardsZone(z, cards) {
    var hide = z.hidden && !showHidden;
    if (z.layout === "pile") {
      return '<div class="stack">' + (cards.length ? back("") : EMPTY) + '<span class="count">' +
        plural(cards.length, "card") + "</span></div>" + (hide ? "" : minis(cards));
    }
    if (z.layout === "top") {
      return '<div class="stack">' + (cards.length ? card(cards[0], "") : EMPTY) + '<span class="count">' +
        plural(cards.length, "card") + "</span></div>" + minis(cards.slice(1));
    }
    if (!cards.length) return '<span class="none">none</span>';
    if (hide) {
      return '<div class="fan tight">' + cards.map(function () { return back(""); }).join("") +
        '</div><span class="count">' + plural(cards.length, "card") + "</span>";
    }
    return '<div class="fan">' + cards.map(function (c) { return card(c, ""); }).join("") + "</div>";
  }
  function groupsZone(groups) {
    if (!groups.length) return '<span class="none">empty</span>';
    return '<div class="groups">' + groups.map(function (g) {
      return '<div class="group' + (g.length >= 3 ? " triplet" : "") + '">' +
        g.map(function (c) { return card(c, ""); }).join("") + "</div>";
    }).join("") + "</div>";
  }

  // --- counters, the die, text --------------------------------------------------------
  function countZone(z, v) {
    var html = '<span class="big">' + v + "</span>";
    if (z.max) {
      var colour = z.owner === undefined || z.owner === null ? "#555" : seatColour(z.owner);
      html += '<span class="of">of ' + z.max + '</span><div class="bar"><i style="width:' +
        Math.min(100, 100 * v / z.max) + "%;background:" + colour + '"></i></div>';
    }
    return html;
  }
  var PIPS = { 1: [4], 2: [0, 8], 3: [0, 4, 8], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8], 6: [0, 2, 3, 5, 6, 8] };
  function dieZone(face) {
    if (!face) return '<span class="none">no roll yet</span>';
    var dots = PIPS[face].map(function (p) {
      return '<circle cx="' + (12 + 13 * (p % 3)) + '" cy="' + (12 + 13 * Math.floor(p / 3)) + '" r="4.2"/>';
    }).join("");
    return '<svg class="die' + (face === 1 ? " bust" : "") + '" viewBox="0 0 50 50" width="54" height="54">' +
      '<rect x="2" y="2" width="46" height="46" rx="9"/>' + dots + "</svg>";
  }

  // --- the Battle Sheep pasture -------------------------------------------------------
  var HEX = 26;
  var W = Math.sqrt(3) * HEX;
  function centre(key) {
    var qr = key.split(",").map(Number);
    return [W * (qr[0] + qr[1] / 2), 1.5 * HEX * qr[1]];
  }
  function corners(c, size) {
    var out = [];
    for (var i = 0; i < 6; i++) {
      var a = Math.PI / 180 * (60 * i - 30);
      out.push((c[0] + size * Math.cos(a)).toFixed(1) + "," + (c[1] + size * Math.sin(a)).toFixed(1));
    }
    return out.join(" ");
  }
  var bounds = null;      // every hex the game ever shows, so the board does not move
  function boardBounds(id) {
    if (bounds) return bounds;
    var xs = [0], ys = [0];
    states.forEach(function (s) {
      Object.keys(s[id] || {}).forEach(function (key) { var c = centre(key); xs.push(c[0]); ys.push(c[1]); });
    });
    var pad = HEX + 6;
    bounds = [Math.min.apply(null, xs) - pad, Math.min.apply(null, ys) - pad,
      Math.max.apply(null, xs) - Math.min.apply(null, xs) + 2 * pad,
      Math.max.apply(null, ys) - Math.min.apply(null, ys) + 2 * pad];
    return bounds;
  }
  function hexZone(z, board, mark) {
    var b = boardBounds(z.id);
    var keys = Object.keys(board);
    var marked = {};
    if (mark) {
      (mark.tile || []).forEach(function (h) { marked[h] = "laid"; });
      if (mark.place) marked[mark.place] = "laid";
      if (mark.from) { marked[mark.from] = "from"; marked[mark.to] = "to"; }
    }
    var svg = '<svg class="pasture" viewBox="' + b.join(" ") + '" preserveAspectRatio="xMidYMid meet" role="img" ' +
      'aria-label="the pasture">';
    var top = "";
    keys.forEach(function (key) {
      var cell = board[key];
      var owner = cell[0], height = cell[1], tile = cell[2];
      var stacked = owner >= 0 && height > 0;
      var c = centre(key);
      // a hex says its coordinates on hover (its title); they are written on it only while
      // no stack stands there, so a label never covers a stack
      svg += "<g><title>(" + esc(key) + ")" + (stacked ? ": " + esc(doc.seats[owner].name) + ", " + height +
        " sheep" : "") + "</title>";
      // an occupied pasture is tinted with its owner's colour, a free one keeps its tile's green
      svg += '<polygon class="hex ' + (owner >= 0 ? "occupied" : "t" + (tile < 0 ? 0 : tile % 4)) + '" points="' +
        corners(c, HEX - 1) + '"/>';
      if (owner >= 0) {
        svg += '<polygon class="own" points="' + corners(c, HEX - 1) + '" style="fill:' + seatColour(owner) + '"/>';
      }
      if (stacked) {
        svg += '<circle class="stack" cx="' + c[0].toFixed(1) + '" cy="' + c[1].toFixed(1) + '" r="' +
          (HEX * 0.5).toFixed(1) + '" style="stroke:' + seatColour(owner) + '"/>' +
          '<text class="height" x="' + c[0].toFixed(1) + '" y="' + c[1].toFixed(1) + '" style="fill:' +
          seatColour(owner) + '">' + height + "</text>";
      } else {
        svg += '<text class="coord" x="' + c[0].toFixed(1) + '" y="' + (c[1] + HEX * 0.62).toFixed(1) + '">' +
          esc(key) + "</text>";
      }
      svg += "</g>";
      if (marked[key]) top += '<polygon class="mark ' + marked[key] + '" points="' + corners(c, HEX - 3) + '"/>';
    });
    if (mark && mark.from) {
      var a = centre(mark.from), t = centre(mark.to);
      var dx = t[0] - a[0], dy = t[1] - a[1], len = Math.sqrt(dx * dx + dy * dy) || 1;
      var cut = HEX * 0.6;
      top += '<line class="arrow" x1="' + (a[0] + dx / len * cut).toFixed(1) + '" y1="' +
        (a[1] + dy / len * cut).toFixed(1) + '" x2="' + (t[0] - dx / len * cut).toFixed(1) + '" y2="' +
        (t[1] - dy / len * cut).toFixed(1) + '" marker-end="url(#arrowhead)"/>';
    }
    if (!keys.length) {
      svg += '<text class="nothing" x="' + (b[0] + b[2] / 2) + '" y="' + (b[1] + b[3] / 2) + '">no pasture yet</text>';
    }
    return svg + '<defs><marker id="arrowhead" viewBox="0 0 10 10" refX="7" refY="5" markerWidth="5" ' +
      'markerHeight="5" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="arrowhead"/></marker></defs>' +
      top + "</svg>";
  }

  // --- zones, seats, the whole picture ----------------------------------------------
  function zoneHtml(z, value, step, changed) {
    var body;
    if (z.kind === "cards") body = cardsZone(z, value);
    else if (z.kind === "groups") body = groupsZone(value);
    else if (z.kind === "count") body = countZone(z, value);
    else if (z.kind === "die") body = dieZone(value);
    else if (z.kind === "hex") body = hexZone(z, value, step.mark);
    else body = '<span class="text' + (z.layout === "pre" ? " pre" : "") + '">' + (value ? esc(value) : "&ndash;") + "</span>";
    var hidden = z.hidden && !showHidden ? " hidden-zone" : "";
    return '<div class="zone kind-' + z.kind + " layout-" + (z.layout || "fan") + (changed ? " changed" : "") +
      hidden + '" data-zone="' + esc(z.id) + '"><div class="label">' + esc(z.label) +
      (z.hidden ? ' <span class="lock" title="hidden from the other players">' +
        (showHidden ? "shown" : "hidden") + "</span>" : "") + '</div><div class="content">' + body + "</div></div>";
  }
  function visible(z, value) {
    return !(z.optional && Array.isArray(value) && value.length === 0);
  }
  function render() {
    var step = doc.steps[k];
    var state = states[k];
    var changed = k > 0 ? step.set : {};
    var winners = step.winners || [];
    var table = "";
    var seats = doc.seats.map(function () { return ""; });
    doc.zones.forEach(function (z) {
      var value = state[z.id];
      if (!visible(z, value)) return;
      // the pasture shows its change as the move's mark instead
      var html = zoneHtml(z, value, step, z.kind !== "hex" && Object.prototype.hasOwnProperty.call(changed, z.id));
      if (z.owner === undefined || z.owner === null) table += html;
      else seats[z.owner] += html;
    });
    var panels = doc.seats.map(function (s, q) {
      var badges = (step.seat === q ? '<span class="badge acted">this step</span>' : "") +
        (winners.indexOf(q) >= 0 ? '<span class="badge won">' + (winners.length > 1 ? "shares the win" : "wins") +
          "</span>" : "");
      return '<div class="seat' + (step.seat === q ? " active" : "") + (winners.indexOf(q) >= 0 ? " winner" : "") +
        '" style="--seat:' + s.colour + '"><div class="seat-head"><span class="swatch"></span><b>' + esc(s.name) +
        '</b><span class="policy">' + esc(s.policy) + "</span>" + badges + '</div><div class="zones">' + seats[q] +
        "</div></div>";
    }).join("");
    $("board").innerHTML = '<div class="table">' + table + '</div><div class="seats">' + panels + "</div>";

    var who = step.seat === null || step.seat === undefined ? "" : " &middot; seat " + step.seat;
    $("event").innerHTML = '<div class="event-head">step ' + k + " &middot; " + esc(step.event.replace(/_/g, " ")) +
      who + '</div><pre class="event-text">' + esc(step.text) + "</pre>";
    // the picture is the state after this step's event, so the status says who acts next
    $("status").innerHTML = '<span class="now">' + (k === n - 1 ? "end" : "next") + "</span> " + esc(step.status);
    $("counter").textContent = "step " + k + " of " + (n - 1);
    $("slider").value = String(k);
    $("prev").disabled = k === 0;
    $("first").disabled = k === 0;
    $("next").disabled = k === n - 1;
    $("last").disabled = k === n - 1;
    try { history.replaceState(null, "", "#step=" + k); } catch (e) { /* some viewers forbid it */ }
  }
  function go(to) {
    var next = Math.max(0, Math.min(n - 1, to));
    if (next !== k) { k = next; render(); }
    if (k === n - 1) pause();
  }

  // autoplay: a step every PLAY_MS until the end or a click on pause; play at the end
  // starts again from the start
  var PLAY_MS = 900;
  var timer = null;
  function pause() {
    if (timer === null) return;
    clearInterval(timer);
    timer = null;
    $("play").innerHTML = "&#x25B6; play";
    $("play").setAttribute("aria-pressed", "false");
  }
  function play() {
    if (k === n - 1) go(0);
    timer = setInterval(function () { go(k + 1); }, PLAY_MS);
    $("play").innerHTML = "&#x275A;&#x275A; pause";
    $("play").setAttribute("aria-pressed", "true");
  }
  function togglePlay() { if (timer === null) play(); else pause(); }

  $("play").addEventListener("click", togglePlay);
  $("prev").addEventListener("click", function () { go(k - 1); });
  $("next").addEventListener("click", function () { go(k + 1); });
  $("first").addEventListener("click", function () { go(0); });
  $("last").addEventListener("click", function () { go(n - 1); });
  $("slider").addEventListener("input", function () { go(parseInt($("slider").value, 10)); });
  if ($("toggle-hidden")) {       // only a game that hides something has the toggle
    $("toggle-hidden").addEventListener("change", function () { showHidden = $("toggle-hidden").checked; render(); });
    $("toggle-hidden").checked = false;
  }
  document.addEventListener("keydown", function (e) {
    if (e.target === $("slider") || e.altKey || e.ctrlKey || e.metaKey) return;    // the slider steps itself
    if (e.key === "ArrowLeft") { go(k - 1); e.preventDefault(); }
    else if (e.key === "ArrowRight") { go(k + 1); e.preventDefault(); }
    else if (e.key === "Home") { go(0); e.preventDefault(); }
    else if (e.key === "End") { go(n - 1); e.preventDefault(); }
    else if (e.key === " " && e.target.tagName !== "BUTTON") { togglePlay(); e.preventDefault(); }
  });
  var linked = /^#step=(\d+)$/.exec(location.hash);
  if (linked) k = Math.max(0, Math.min(n - 1, parseInt(linked[1], 10)));
  render();
})();
