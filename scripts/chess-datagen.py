#!/usr/bin/env python3
"""Plays self-play games of a UCI engine from random openings and writes labelled positions for tuning.

Each game starts with --random-plies uniformly random legal moves (listed by the engine's `go perft 1`),
then the engine plays both sides at --nodes nodes a move. Every position it searched is written as
    FEN;score;bestmove;result
in the format of scripts/chess-label.py: the engine's score in centipawns for the side to move, its best
move and the game's result from White's side (1, 0.5 or 0). Positions in check and mate scores are left
out. A game ends at mate or stalemate, a threefold repetition (first four FEN fields), the fifty-move
rule, --max-plies (a draw), or when one side's score stays at or above --adjudicate centipawns for six
plies in a row (a win for that side). Runs until --games games or --seconds seconds, whichever first;
progress goes to stderr. Needs only Python's standard library and the engine (which must answer `d`
with a `Fen:` line and `Checkers:` line, as Stockfish does).

usage: chess-datagen.py --engine CMD --out FILE [--games N] [--seconds S] [--nodes N] [--seed S]
"""
import argparse
import random
import sys
import time

from uci_engine import Engine


def play(eng, rng, args):
    moves = []
    for _ in range(args.random_plies):
        eng.position(moves)
        legal = eng.legal()
        if not legal:
            return None, []
        moves.append(rng.choice(legal))
    eng.send("ucinewgame")
    seen = {}
    rows = []
    streak_side, streak = None, 0
    result = 0.5
    while True:
        eng.position(moves)
        fen, check = eng.board()
        fields = fen.split()
        white = fields[1] == "w"
        key = " ".join(fields[:4])
        seen[key] = seen.get(key, 0) + 1
        if seen[key] >= 3 or int(fields[4]) >= 100 or len(moves) >= args.max_plies:
            result = 0.5
            break
        score, best = eng.search(f"nodes {args.nodes}")
        if best == "(none)":
            result = (0.0 if white else 1.0) if check else 0.5
            break
        if score is None:
            return None, []
        kind, value = score
        if kind == "cp" and not check:
            rows.append((fen, value, best))
        cp = value if kind == "cp" else (100000 if value > 0 else -100000)
        winner = (white if cp > 0 else not white) if abs(cp) >= args.adjudicate else None
        if winner is None:
            streak_side, streak = None, 0
        elif winner == streak_side:
            streak += 1
        else:
            streak_side, streak = winner, 1
        if streak >= 6:
            result = 1.0 if streak_side else 0.0
            break
        moves.append(best)
    return result, rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--games", type=int, default=1000000)
    ap.add_argument("--seconds", type=float, default=1e9)
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--random-plies", type=int, default=8)
    ap.add_argument("--max-plies", type=int, default=400)
    ap.add_argument("--adjudicate", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    eng = Engine(args.engine)
    start = time.time()
    games = positions = 0
    with open(args.out, "w") as out:
        while games < args.games and time.time() - start < args.seconds:
            result, rows = play(eng, rng, args)
            if result is None:
                continue
            games += 1
            positions += len(rows)
            for fen, score, best in rows:
                out.write(f"{fen};{score};{best};{result:g}\n")
            out.flush()
            if games % 20 == 0:
                print(f"{games} games, {positions} positions, {time.time() - start:.0f} s", file=sys.stderr)
    eng.quit()
    print(f"done: {games} games, {positions} positions", file=sys.stderr)


if __name__ == "__main__":
    main()
