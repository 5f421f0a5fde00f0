"""A learning baseline on the Gymnasium environment (thurn_ai.adapters.gym): a masked actor-critic in numpy, its
learning curve against `random`, `greedy` and `heuristic`. Writes results/learning/.

    python experiments/learning_baseline.py                        # the published run (~20 min of one core)
    python experiments/learning_baseline.py --games 40 --eval-every 20 --eval-games 4 --final-games 4 --out /tmp/l

The agent: the normalised observation tensor (every value in [0, 1]) -> one tanh layer of --hidden units
-> a logit per action id, illegal actions masked out of the softmax, and a value head on the same layer.
Trained by the policy gradient with the value as baseline (advantage actor-critic, Monte Carlo returns),
an entropy bonus, Adam, one update per --batch games. 2-player games, the agent's seat drawn each game,
against an opponent drawn each game from --train-opponents. Reward: the change of the agent's score
margin (its score minus the opponent's, in points / 10) between its decisions, which adds up to the
final margin, plus 1 for a win at the end: a dense signal whose sum is the game's result.

Evaluation: every --eval-every training games, --eval-games games against each of random, greedy and
heuristic with the agent taking its most likely legal action (no exploration); at the end, --final-games
games against each. Games are cut at --max-turns rounds (the engine's safeguard; a cut game is scored as
it stands, winner by the rules' tie-break) so that an agent that never ends the game cannot stall the
run: heuristic 2-player games end after about 28 rounds. Win rates with 95% Wilson intervals.
Every game's seed comes from --seed: the same command on the same code gives the same numbers.
"""
from __future__ import annotations

import argparse
import io
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "learning"
SEED = 2026
OPPONENTS = ("random", "greedy", "heuristic")
CURVE_FIELDS = ["training_games", "training_steps", "opponent", "games", "wins", "win_rate", "ci_low", "ci_high",
                "mean_margin"]


# ---------------------------------------------------------------- the agent

class Agent:
    """A masked softmax policy and a value, sharing one tanh layer; trained with Adam."""

    def __init__(self, n_in: int, n_actions: int, hidden: int, rng: np.random.Generator):
        self.p = {"W1": rng.normal(0, 1 / np.sqrt(n_in), (n_in, hidden)), "b1": np.zeros(hidden),
                  "W2": np.zeros((hidden, n_actions)), "b2": np.zeros(n_actions),
                  "Wv": np.zeros(hidden), "bv": np.zeros(1)}
        self.m = {k: np.zeros_like(v) for k, v in self.p.items()}
        self.v = {k: np.zeros_like(v) for k, v in self.p.items()}
        self.t = 0

    def logits(self, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        h = np.tanh(x @ self.p["W1"] + self.p["b1"])
        z = h @ self.p["W2"] + self.p["b2"]
        return np.where(mask > 0, z, -np.inf)

    def act(self, x, mask, rng: np.random.Generator | None) -> int:
        """A sampled action (rng given) or the most likely legal one (rng None)."""
        z = self.logits(x, mask)
        if rng is None:
            return int(np.argmax(z))
        p = np.exp(z - z.max())
        p /= p.sum()
        return int(rng.choice(len(p), p=p))

    def loss_and_gradients(self, X, M, A, G, adv=None, entropy: float = 0.0, value_weight: float = 0.5):
        """The batch loss -mean(adv * log p[a]) - entropy * mean(H(p)) + value_weight * mean((V - G)^2) / 2
        and its gradient by parameter. X observations, M masks, A actions taken, G returns to go; adv the
        advantages (held constant; by default G - V, standardised)."""
        p = self.p
        n = len(A)
        H = np.tanh(X @ p["W1"] + p["b1"])
        Z = np.where(M > 0, H @ p["W2"] + p["b2"], -np.inf)
        Z -= Z.max(axis=1, keepdims=True)
        P = np.exp(Z)
        P /= P.sum(axis=1, keepdims=True)
        logP = np.where(M > 0, np.log(np.maximum(P, 1e-12)), 0.0)
        V = H @ p["Wv"] + p["bv"][0]
        if adv is None:
            adv = G - V
            adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        ent = -(P * logP).sum(axis=1)
        loss = (-(adv * logP[np.arange(n), A]).mean() - entropy * ent.mean()
                + value_weight * 0.5 * np.mean((V - G) ** 2))
        # d loss / d logits: the policy gradient, then the entropy's
        dZ = P.copy()
        dZ[np.arange(n), A] -= 1.0
        dZ *= adv[:, None]
        dZ += entropy * P * (logP + ent[:, None])
        dZ /= n
        dV = value_weight * (V - G) / n
        dH = dZ @ p["W2"].T + np.outer(dV, p["Wv"])
        dPre = dH * (1 - H * H)
        grads = {"W2": H.T @ dZ, "b2": dZ.sum(0), "Wv": H.T @ dV, "bv": np.array([dV.sum()]),
                 "W1": X.T @ dPre, "b1": dPre.sum(0)}
        return loss, grads, {"entropy": float(ent.mean()), "value_error": float(np.mean((V - G) ** 2))}

    def update(self, X, M, A, G, lr: float, entropy: float) -> dict:
        """One step of Adam on a batch (see loss_and_gradients)."""
        _, grads, stats = self.loss_and_gradients(X, M, A, G, entropy=entropy)
        self.t += 1
        for k, g in grads.items():
            self.m[k] = 0.9 * self.m[k] + 0.1 * g
            self.v[k] = 0.999 * self.v[k] + 0.001 * g * g
            mh = self.m[k] / (1 - 0.9 ** self.t)
            vh = self.v[k] / (1 - 0.999 ** self.t)
            self.p[k] -= lr * mh / (np.sqrt(vh) + 1e-8)
        return stats


# ---------------------------------------------------------------- games

def _margin(env) -> float:
    scores = env.game.scores()
    mine = scores[env.seat]
    return mine - (sum(scores) - mine) / (len(scores) - 1)


def play(env, agent: Agent, seed: int, rng: np.random.Generator | None, record: bool = False):
    """One game; (won, final margin, [(x, mask, action, reward)] if record). rng None: greedy play."""
    obs, _ = env.reset(seed=seed)
    steps = []
    before = _margin(env)
    done = False
    reward = 0.0
    while not done:
        x, mask = obs["observation"], obs["action_mask"]
        a = agent.act(x, mask, rng)
        obs, reward, terminated, truncated, _ = env.step(a)
        done = terminated or truncated
        after = _margin(env)
        if record:
            shaped = (after - before) / 10 + (reward if done else 0.0)
            steps.append((x, mask, a, shaped))
        before = after
    return reward == 1.0, _margin(env), steps


def returns_to_go(rewards: list[float], gamma: float) -> np.ndarray:
    out = np.zeros(len(rewards))
    g = 0.0
    for i in range(len(rewards) - 1, -1, -1):
        g = rewards[i] + gamma * g
        out[i] = g
    return out


def evaluate(envs: dict, agent: Agent, games: int, seed: int) -> list[dict]:
    from thurn_ai.play.match import derive_seed
    from thurn_ai.stats.summary import wilson_interval
    rows = []
    for name, env in envs.items():
        results = [play(env, agent, derive_seed(seed, "eval", name, k), None) for k in range(games)]
        wins = sum(w for w, _, _ in results)
        low, high = wilson_interval(wins, games)
        rows.append({"opponent": name, "games": games, "wins": wins, "win_rate": round(wins / games, 4),
                     "ci_low": round(low, 4), "ci_high": round(high, 4),
                     "mean_margin": round(float(np.mean([m for _, m, _ in results])), 2)})
    return rows


# ---------------------------------------------------------------- files

def write_csv(path: Path, rows: list[dict], fields: list[str]) -> None:
    import pandas as pd

    from thurn_ai.fileio import atomic_to_csv
    atomic_to_csv(pd.DataFrame(rows, columns=fields), path, index=False)


def plot_curve(path: Path, curve: list[dict]) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from thurn_ai.fileio import atomic_savefig
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for name, colour in zip(OPPONENTS, ("tab:green", "tab:orange", "tab:red")):
        rows = [r for r in curve if r["opponent"] == name]
        x = [r["training_games"] for r in rows]
        ax.plot(x, [100 * r["win_rate"] for r in rows], marker="o", color=colour, label=f"against {name}")
        ax.fill_between(x, [100 * r["ci_low"] for r in rows], [100 * r["ci_high"] for r in rows],
                        color=colour, alpha=0.15)
    ax.axhline(50, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("training games (2 players)")
    ax.set_ylabel("win rate of the learned agent, % (95% CI)")
    ax.set_ylim(0, 100)
    ax.set_title("Masked actor-critic on the normalised tensor (numpy)")
    ax.legend(loc="upper left")
    fig.tight_layout()
    atomic_savefig(fig, path, dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------- main

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=4000, help="training games (default 4000)")
    ap.add_argument("--batch", type=int, default=8, help="games per update")
    ap.add_argument("--train-opponents", default="random,greedy,greedy",
                    help="opponents drawn from, one per game (default random,greedy,greedy)")
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--entropy", type=float, default=0.01)
    ap.add_argument("--gamma", type=float, default=0.99)
    ap.add_argument("--max-turns", type=int, default=100, help="rounds after which a game is cut (default 100)")
    ap.add_argument("--eval-every", type=int, default=1000, help="training games between evaluations")
    ap.add_argument("--eval-games", type=int, default=40, help="games against each bot at each evaluation")
    ap.add_argument("--final-games", type=int, default=200, help="games against each bot at the end")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args(argv)
    numbers = (a.games, a.batch, a.hidden, a.max_turns, a.eval_every, a.eval_games, a.final_games)
    if min(numbers) < 1 or not a.lr > 0 or not 0 <= a.entropy or not 0 < a.gamma <= 1:
        ap.error("--games, --batch, --hidden, --max-turns, --eval-every, --eval-games, --final-games and --lr "
                 "must be positive, --entropy 0 or more, --gamma in (0, 1]")
    train_names = a.train_opponents.split(",")
    if any(x not in OPPONENTS for x in train_names):
        ap.error(f"--train-opponents: each one of {', '.join(OPPONENTS)}, not {a.train_opponents!r}")
    try:
        from thurn_ai.adapters.gym import env as make_env
    except ImportError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    from thurn_ai.studies.provenance import machine_info
    from thurn_ai.fileio import atomic_write_bytes, atomic_write_text
    from thurn_ai.studies.markdown import table
    from thurn_ai.studies.pages import refresh
    from thurn_ai.play.match import derive_seed

    out = a.out
    out.mkdir(parents=True, exist_ok=True)
    command = "python experiments/learning_baseline.py " + " ".join(argv if argv is not None else sys.argv[1:])
    envs = {name: make_env(opponents=name, max_turns=a.max_turns) for name in OPPONENTS}
    rng = np.random.default_rng(a.seed)
    enc = envs["random"].encoding
    agent = Agent(enc.tensor_size, enc.num_actions, a.hidden, rng)
    curve, log = [], []
    steps_done = 0
    start = time.process_time()

    def checkpoint(games_done, count):
        for r in evaluate(envs, agent, count, derive_seed(a.seed, "checkpoint", games_done)):
            curve.append({"training_games": games_done, "training_steps": steps_done, **r})
            print(f"after {games_done} games ({steps_done} steps): {r['opponent']} {r['wins']}/{r['games']}",
                  flush=True)

    checkpoint(0, a.eval_games)
    batch = []
    for k in range(a.games):
        name = train_names[int(rng.integers(len(train_names)))]
        won, margin, steps = play(envs[name], agent, derive_seed(a.seed, "train", k), rng, record=True)
        steps_done += len(steps)
        batch.append(steps)
        if len(batch) == a.batch:
            X = np.array([s[0] for g in batch for s in g], dtype=np.float64)
            M = np.array([s[1] for g in batch for s in g])
            A = np.array([s[2] for g in batch for s in g])
            G = np.concatenate([returns_to_go([s[3] for s in g], a.gamma) for g in batch])
            stats = agent.update(X, M, A, G, a.lr, a.entropy)
            log.append({"training_games": k + 1, "training_steps": steps_done, **stats})
            batch = []
        if (k + 1) % a.eval_every == 0 and k + 1 < a.games:
            checkpoint(k + 1, a.eval_games)
    checkpoint(a.games, a.final_games)
    seconds = time.process_time() - start

    write_csv(out / "curve.csv", curve, CURVE_FIELDS)
    write_csv(out / "training.csv", log, ["training_games", "training_steps", "entropy", "value_error"])
    buf = io.BytesIO()
    np.savez_compressed(buf, **agent.p)
    atomic_write_bytes(out / "agent.npz", buf.getvalue())
    plot_curve(out / "curve.png", curve)
    machine = machine_info()
    run = {"command": command, "seed": a.seed, "commit": machine.get("commit"), "cpu_seconds": round(seconds),
           **{k: v for k, v in vars(a).items() if k not in ("out", "seed")}}
    atomic_write_text(out / "run.json", json.dumps(run, indent=1) + "\n")
    final = [r for r in curve if r["training_games"] == a.games]
    first = [r for r in curve if r["training_games"] == 0]
    lines = ["# A learning baseline: masked actor-critic on the normalised tensor", "",
             "Written by `experiments/learning_baseline.py` (its docstring says what is trained and how).", "",
             f"Command (from the repository root): `{command}`  ",
             f"Seed: {a.seed}. Commit: {machine.get('commit')}. Machine: {machine.get('cpu')}, Python "
             f"{machine.get('python')}, {machine.get('time')}; one process, {seconds / 60:.0f} CPU minutes.  ",
             f"Training: {a.games} two-player games against {a.train_opponents} (one drawn per game), "
             f"{steps_done} decisions of the agent, an update every {a.batch} games; games cut at "
             f"{a.max_turns} rounds.", "",
             "![learning curve](curve.png)", "",
             *table(["opponent", f"before training ({first[0]['games']} games)",
                     f"after {a.games} games ({final[0]['games']} games) [95% CI]", "mean score margin after"],
                    ([f1["opponent"], f"{100 * f0['win_rate']:.0f}%", f"{100 * f1['win_rate']:.1f}% "
                      f"[{100 * f1['ci_low']:.1f}, {100 * f1['ci_high']:.1f}]", f1["mean_margin"]]
                     for f0, f1 in zip(first, final)), right="lllr")]
    lines += ["", "Files: `curve.csv` (each evaluation), `curve.png`, `training.csv` (entropy and value error "
              "per update), `agent.npz` (the trained weights: W1, b1, W2, b2, Wv, bv), `run.json`.", ""]
    atomic_write_text(out / "report.md", "\n".join(lines))
    refresh(out)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
