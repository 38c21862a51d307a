"""Monte Carlo tree search through the engine contract (games/driver.py), for every game.

One algorithm serves both search policies:

* `mcts`, for perfect-information games (Battle Sheep, Pig): UCT (Kocsis and
  Szepesvari 2006) over the real state;
* `ismcts`, for hidden-information games (Bye-Bye Black Sheep, Hiboufou):
  single-observer information-set MCTS (Cowling, Powley and Whitehouse 2012). Each
  iteration first re-deals, through the contract's `determinize`, every card the
  searching seat cannot see, then descends ONE tree over that seat's information set.

An iteration: copy the root state (and determinize it), descend from the root while
every legal action of the node already has a child, choosing by UCB1 with availability
counts, expand one untried legal action (chosen uniformly; with expand=greedy a node's
first expansion is the action the game's heuristic, the greedy rollout policy, would
play there: a prior from the heuristic that costs one of its decisions a node), then
play the rest of the
game with the rollout policy (the game's own `random` or its heuristic, `greedy`), or,
with a cut-off, stop after `cutoff` rollout decisions and score the leaf by `progress`.

Tree. Two kinds of node alternate. A decision node holds the children of one decision:
action nodes, keyed by the action's value, each with the statistics of its actor (the
seat that chose it: visits, reward sum, availability). An action node's children are
decision nodes keyed by the chance outcome the action met (`chance`: Pig's die, the
card a blind draw yielded; -1 for an action without luck), so luck is a chance node:
its outcomes are sampled each iteration from the search's own stream, in proportion to
their probability, and each outcome gets its own subtree. Keys are values, not
positions in the legal list: in a determinized game an opponent's legal actions change
with the cards it was dealt, and a child is then only available, and only counted as
such, in the iterations where its action is legal (the "availability" of SO-ISMCTS).
In perfect information every child is always available and this is plain UCT.

Rewards and backups (max-n: each seat maximises its own result). A finished game gives
each seat its share of the win: 1 / (number of winners) to each winner, 0 to the
others, and 1 / players to every seat when nobody won (a capped game, a draw). At a
cut-off the seats with the highest `progress` share the win the same way, or, with
`temp` > 0, each seat's share is exp(progress / temp) normalised over the seats (a
soft win share: a leader by a margin m in two players gets 1 / (1 + exp(-m / temp)),
so a cut-off tells a large lead from a small one). Every action
node on the iteration's path adds the reward of ITS actor, so in 3 or 4 players each
seat's choices in the tree maximise that seat's own expected share.

Nature. A decision of the rules' own (actor NATURE: Battle Sheep's random board build)
ends the descent; the rollout plays it with `nature`. In the shipped games such
decisions only come before the first seat decides, so the tree never meets them.

Chosen action: the root child with the most visits (the "robust child"); ties go to the
higher reward sum, then to the child created last. With `iters` = 1 it is the one
action tried, drawn uniformly: a random policy.

Memory per decision is bounded: a node pool of min(`nodes`, 2 * iters + 1) nodes, each
48 bytes plus 4 per action value, is allocated for the decision (an expansion adds an
action node and its first outcome node; a new chance outcome adds one), and in perfect
information LISTED_ROWS rows of actions per node, where decision nodes keep their legal
list from their first visit (a cache: when the rows run out, later lists are generated
at every visit, as `ismcts` always does). `nodes` = 0 asks
for 2 * iters + 1, which never fills. A smaller pool fills: from then on iterations
expand nothing, descend through the existing tree as far as it reaches and roll out
from there (the statistics keep improving; the tree stops growing). With `nodes` =
1 + 2 x (the root's legal actions) the search is flat Monte Carlo: UCB1 over the
root's actions, each estimated by rollouts.

Randomness: every draw (determinize, the untried action, chance outcomes, the rollout
policy) comes from the `rng` given, the seat's policy stream, so a game's decisions
depend only on (config, seed, game index), as every other policy's do; and in
`ismcts` they depend on hidden cards only through `determinize`, whose re-deal depends
only on what the seat knows (tests/test_search.py re-deals the unseen cards and checks
that the decisions do not change).
"""

import numpy as np
from numba import njit

from ..rng import rand_below
from ..games.driver import NATURE, as_action
from ..games.fast import array as unmanaged, popcount

# the parameter vector (policies.PolicySpec.vector), in the registered order
P_ITERS, P_C, P_ROLLOUT, P_CUTOFF, P_NODES, P_TEMP, P_EXPAND = range(7)
EXPAND_RANDOM, EXPAND_GREEDY = 0, 1
ROLLOUT_RANDOM, ROLLOUT_GREEDY = 0, 1
# each game's SEARCH tuple (search/wiring.py, from its Engine record), by position
S_O_SIZE, S_O_COWINNERS, S_RANDOM, S_GREEDY = range(4)
# rows of kept legal lists per node of the pool (perfect information, search below):
# enough for every decision node of a game with up to 2 x LISTED_ROWS actions a node
LISTED_ROWS = 32


def rollout_params(random, greedy):
    """The rollout policies' parameter vectors, rows ROLLOUT_RANDOM and ROLLOUT_GREEDY:
    a game's Engine record (games/kernels.py) gives each one's values (its defaults),
    padded here."""
    from ..policies import MAX_PARAMS
    out = np.zeros((2, MAX_PARAMS))
    out[ROLLOUT_RANDOM, :len(random)] = random
    out[ROLLOUT_GREEDY, :len(greedy)] = greedy
    return out


@njit(inline="always")
def heuristic(prior, spec, rollout_params, s, rules, aux, seat, rng, buf, scratch):
    """The action the game's greedy rollout policy plays at `s` (mcts's expand=greedy,
    alpha-beta's tie-break), through `prior`: the game's built-in dispatcher called,
    not inlined (driver.called). A few calls a search; a second inlined copy of the
    rollout dispatcher nearly doubled the chunk kernels' compile time (Hiboufou's
    search kernels: 95 s to warm, 168 s with it)."""
    return as_action(prior(spec[S_GREEDY], s, rules, aux, seat, rollout_params[ROLLOUT_GREEDY], rng, buf,
                            scratch))


@njit(cache=True)
def no_determinize(s, rules, aux, seat, rng):
    """A perfect-information game hides nothing: nothing to re-deal."""
    return


@njit(inline="always")
def copy_whole(dst, src, size):
    """The iteration's copy of the root state: every slot. A game whose state holds
    regions mostly unused (Hiboufou's sized for a 720-card deck) passes a copy of the
    live slots instead, with this signature (the `copy_state` hook)."""
    for k in range(size):
        dst[k] = src[k]


@njit(inline="always")
def _same(keys, node, lbuf, i, width):
    for k in range(width):
        if keys[node, k] != lbuf[i, k]:
            return False
    return True


@njit(inline="always")
def _rewards(outcome, progress, spec, sim, rules, players, cutoff_hit, temp, orow, prog, reward):
    """Each seat's share of the win (module docstring): reward[q]. At a cut-off with
    `temp` > 0 the shares are soft: exp(progress / temp), normalised."""
    if cutoff_hit:
        progress(sim, rules, prog)
        best = prog[0]
        for q in range(1, players):
            best = max(best, prog[q])
        if temp > 0:
            total = 0.0
            for q in range(players):
                reward[q] = np.exp((prog[q] - best) / temp)
                total += reward[q]
            for q in range(players):
                reward[q] /= total
            return
        mask = 0
        for q in range(players):
            if prog[q] == best:
                mask |= 1 << q
    else:
        outcome(sim, rules, orow)
        mask = orow[spec[S_O_COWINNERS]]
    winners = popcount(np.int64(mask))
    for q in range(players):
        if winners == 0:
            reward[q] = 1.0 / players
        else:
            reward[q] = 1.0 / winners if (mask >> q) & 1 else 0.0


@njit(inline="always")
def rollout(actor, nature, chance, step, choose, sim, rules, aux, rollout_id, rparams, cutoff, rng, buf, scratch):
    """Play `sim` out with the rollout policy `rollout_id` to the end of the game, or for
    `cutoff` decisions when cutoff > 0; True when the cut-off stopped it. An iteration's
    rollout, and what `sheepsim bench` times as a random playout (search/bench.py)."""
    t = 0
    while True:
        who = actor(sim, rules)
        if who == -1:
            return False
        if cutoff > 0 and t >= cutoff:
            return True
        if who == NATURE:
            action = as_action(nature(sim, rules, aux, rng))
        else:
            action = as_action(choose(rollout_id, sim, rules, aux, who, rparams, rng, buf, scratch))
        step(sim, rules, aux, action, chance(sim, rules, aux, action, rng))
        t += 1


@njit(inline="always")
def search(actor, legal, nature, chance, step, outcome, progress, determinize, copy_state, choose, prior, view,
           game, spec, rollout_params, hidden, s, rules, aux, seat, params, rng, buf):
    """Search from `s`, `seat` to act; write the chosen action into buf[0] and return
    the number of iterations run. `copy_state(dst, src, size)` copies the root state at
    each iteration (copy_whole, or the game's copy of its live slots); `choose` is a
    dispatcher that holds the game's rollout policies (in the chunk kernels an inlined
    one holding only them: Battle Sheep's `choose`, the other games' `choose_rollout`;
    in the replay and user kernels the called built-in dispatcher); `prior` the called
    built-in dispatcher in every kernel (heuristic); `view` the game's fast.pointer or
    fast.array; `game` and `spec` its GAME and SEARCH tuples; `rollout_params` the
    rollout policies' parameter vectors (row ROLLOUT_RANDOM, ROLLOUT_GREEDY); `hidden`
    whether to determinize."""
    width = game.action_size
    players = rules[0]
    iters = np.int64(params[P_ITERS])
    c_explore = params[P_C]
    which = np.int64(params[P_ROLLOUT])
    rollout_id = spec[S_GREEDY] if which == ROLLOUT_GREEDY else spec[S_RANDOM]
    rparams = rollout_params[which]
    cutoff = np.int64(params[P_CUTOFF])
    temp = params[P_TEMP]
    expand_greedy = np.int64(params[P_EXPAND]) == EXPAND_GREEDY
    cap = 2 * iters + 1
    if params[P_NODES] > 0:
        cap = max(3, min(cap, np.int64(params[P_NODES])))

    # the node pool (module docstring); node 0 is the root decision node
    keys = np.empty((cap, width), dtype=np.int32)      # action nodes: the action
    hint = np.zeros(cap, dtype=np.int32)               # action nodes: its row in the last legal list
    outcome_key = np.empty(cap, dtype=np.int32)        # decision nodes: the chance outcome
    first = np.full(cap, -1, dtype=np.int32)           # first child, -1 for none
    sibling = np.full(cap, -1, dtype=np.int32)         # next child of the same parent
    visits = np.zeros(cap, dtype=np.float64)
    avail = np.zeros(cap, dtype=np.float64)
    wins = np.zeros(cap, dtype=np.float64)             # the actor's reward, summed
    used = 1
    path = np.empty(cap, dtype=np.int32)               # the action nodes of an iteration ...
    path_seat = np.empty(cap, dtype=np.int32)          # ... and who chose each
    state = np.empty(game.state_size, dtype=np.int32)
    sim = view(state)
    lbuf = np.empty((game.max_actions, width), dtype=np.int32)
    # perfect information: a decision node's state, so its legal list, is the same at
    # every visit; the list is kept from the first (rows of `listed`, while they last)
    # rather than generated again. A cache only: the search's choices do not change.
    listed = np.empty((0 if hidden else LISTED_ROWS * cap, width), dtype=np.int32)
    list_at = np.full(cap, -1, dtype=np.int32)         # decision nodes: the first row of its list
    list_n = np.zeros(cap, dtype=np.int32)             # ... and its length
    listed_used = 0
    scratch = np.empty((game.max_actions, width), dtype=np.int32)
    # the legal lists are read through views without reference counts (games/fast.py):
    # slicing a counted array at every node of every iteration cost Pig's search a
    # few percent in atomic counts; `lbuf` and `listed` stay in use, so stay alive
    lview = unmanaged(lbuf)
    kept = unmanaged(listed)
    child_at = np.empty(game.max_actions, dtype=np.int32)
    orow = np.zeros(spec[S_O_SIZE], dtype=np.int32)
    prog = np.zeros(game.max_players, dtype=np.float64)
    reward = np.zeros(game.max_players, dtype=np.float64)

    for _ in range(iters):
        # into `state` itself, not its view `sim`: a use of the array in the loop keeps
        # numba from freeing it (reference counting) while `sim` still points into it
        copy_state(state, s, game.state_size)
        if hidden:
            determinize(sim, rules, aux, seat, rng)
        node = 0
        depth = 0
        # descend: select while the node's legal actions all have children, then expand
        while True:
            who = actor(sim, rules)
            if who < 0:             # the game is over (-1), or nature decides (NATURE)
                break
            if list_at[node] >= 0:
                n = list_n[node]
                rows = kept[list_at[node]:list_at[node] + n]
            else:
                n = legal(sim, rules, aux, lbuf)
                rows = lview[:n]
                if not hidden and listed_used + n <= listed.shape[0]:
                    for i in range(n):
                        for k in range(width):
                            listed[listed_used + i, k] = lbuf[i, k]
                    list_at[node] = listed_used
                    list_n[node] = n
                    listed_used += n
            for i in range(n):
                child_at[i] = -1
            untried = n
            child = first[node]
            while child >= 0:
                i = hint[child]
                if not (i < n and _same(keys, child, rows, i, width)):
                    i = -1
                    for j in range(n):
                        if _same(keys, child, rows, j, width):
                            i = j
                            break
                if i >= 0:
                    child_at[i] = child
                    hint[child] = i
                    avail[child] += 1.0
                    untried -= 1
                child = sibling[child]
            if untried > 0 and used + 2 <= cap:
                # expand: an untried legal action, uniformly (or first the heuristic's
                # choice, expand=greedy), with its first outcome node
                i = -1
                if expand_greedy and untried == n:
                    action = heuristic(prior, spec, rollout_params, sim, rules, aux, who, rng, buf, scratch)
                    for k in range(width):
                        buf[0, k] = action[k]
                    for j in range(n):
                        if _same(buf, 0, rows, j, width):
                            i = j
                            break
                if i < 0:
                    pick = rand_below(rng, untried)
                    i = 0
                    while True:
                        if child_at[i] < 0:
                            if pick == 0:
                                break
                            pick -= 1
                        i += 1
                a = used
                d = used + 1
                used += 2
                for k in range(width):
                    keys[a, k] = rows[i, k]
                hint[a] = i
                avail[a] = 1.0
                sibling[a] = first[node]
                first[node] = a
                path[depth] = a
                path_seat[depth] = who
                depth += 1
                c = chance(sim, rules, aux, rows[i], rng)
                step(sim, rules, aux, rows[i], c)
                outcome_key[d] = c
                first[a] = d
                break
            # select: UCB1 over the available children (none: the pool is full)
            best = -1
            best_value = -1.0
            for i in range(n):
                child = child_at[i]
                if child >= 0:
                    value = wins[child] / visits[child] + c_explore * np.sqrt(np.log(avail[child]) / visits[child])
                    if value > best_value:
                        best, best_value = i, value
            if best < 0:
                break
            a = child_at[best]
            path[depth] = a
            path_seat[depth] = who
            depth += 1
            c = chance(sim, rules, aux, rows[best], rng)
            step(sim, rules, aux, rows[best], c)
            d = first[a]
            while d >= 0 and outcome_key[d] != c:
                d = sibling[d]
            if d < 0:
                if used + 1 > cap:
                    break
                d = used       # a new chance outcome: its node is this iteration's expansion
                used += 1
                outcome_key[d] = c
                sibling[d] = first[a]
                first[a] = d
                break
            node = d
        cut = rollout(actor, nature, chance, step, choose, sim, rules, aux, rollout_id, rparams, cutoff, rng, buf,
                      scratch)
        _rewards(outcome, progress, spec, sim, rules, players, cut, temp, orow, prog, reward)
        for k in range(depth):
            visits[path[k]] += 1.0
            wins[path[k]] += reward[path_seat[k]]

    # the robust child: most visits, then the higher mean, then the first created
    best = -1
    child = first[0]
    while child >= 0:
        if best < 0 or visits[child] > visits[best] or (
                visits[child] == visits[best] and wins[child] > wins[best]):
            best = child
        child = sibling[child]
    for k in range(width):
        buf[0, k] = keys[best, k]
    return iters
