#!/usr/bin/env python3
"""Labels chess positions for tuning the evaluation.

Reads game logs written by `warpmind-referee --log` (a "game N: engine 1 white|black, won|lost|draw ..."
line, then "  moves: ..." in UCI notation), replays each game in a reference UCI engine and writes one line
per kept position:  FEN;score;bestmove;result
  score     the reference engine's score in centipawns from the side to move's point of view, at --depth
  bestmove  its best move (the tuner drops positions whose best move captures or promotes: not quiet)
  result    the game's result from White's point of view: 1, 0.5 or 0
Positions in check, the first --skip plies, mate scores and repeated positions (same first four FEN fields)
are left out. Progress goes to stderr.

usage: chess-label.py --engine CMD --depth N --out FILE LOG...
"""
import argparse
import sys

from uci_engine import Engine


def parse_games(paths):
    for path in paths:
        header = None
        with open(path) as f:
            for line in f:
                line = line.rstrip("\n")
                if line.startswith("game "):
                    header = line
                elif line.startswith("  moves:") and header:
                    words = header.replace(",", "").split()
                    colour, outcome = words[4], words[5]
                    if outcome == "draw":
                        result = 0.5
                    else:
                        engine1_won = outcome == "won"
                        white_won = engine1_won == (colour == "white")
                        result = 1.0 if white_won else 0.0
                    yield line.split()[1:], result
                    header = None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", required=True)
    ap.add_argument("--depth", type=int, default=10)
    ap.add_argument("--skip", type=int, default=8)
    ap.add_argument("--out", required=True)
    ap.add_argument("logs", nargs="+")
    args = ap.parse_args()
    eng = Engine(args.engine)
    seen = set()
    kept = 0
    games = list(parse_games(args.logs))
    with open(args.out, "w") as out:
        for gi, (moves, result) in enumerate(games):
            eng.send("ucinewgame")
            for k in range(args.skip, len(moves)):
                eng.position(moves[:k])
                fen, check = eng.board()
                if check:
                    continue
                key = " ".join(fen.split()[:4])
                if key in seen:
                    continue
                seen.add(key)
                score, best = eng.search("depth %d" % args.depth)
                if score is None or score[0] != "cp":
                    continue
                score = score[1]
                out.write("%s;%d;%s;%g\n" % (fen, score, best, result))
                kept += 1
            if gi % 20 == 0:
                print("games %d/%d, positions %d" % (gi + 1, len(games), kept), file=sys.stderr, flush=True)
    print("positions %d" % kept, file=sys.stderr)


if __name__ == "__main__":
    main()
