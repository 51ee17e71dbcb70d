"""A UCI engine driven over its stdin and stdout, for the chess data scripts (chess-label.py,
chess-datagen.py). One thread and 16 MB of hash. board() and legal() use Stockfish's `d` (Fen: and
Checkers: lines) and `go perft 1` (one "move: count" line per legal move)."""
import subprocess


class Engine:
    def __init__(self, cmd):
        self.p = subprocess.Popen(cmd, shell=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.send("uci")
        self.wait("uciok")
        self.send("setoption name Threads value 1")
        self.send("setoption name Hash value 16")
        self.send("isready")
        self.wait("readyok")

    def send(self, s):
        self.p.stdin.write(s + "\n")
        self.p.stdin.flush()

    def wait(self, prefix):
        """The lines up to and including the first that starts with `prefix`."""
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("engine closed")
            line = line.rstrip("\n")
            lines.append(line)
            if line.startswith(prefix):
                return lines

    def position(self, moves):
        self.send("position startpos" + (" moves " + " ".join(moves) if moves else ""))

    def board(self):
        """(FEN, in check) of the current position."""
        self.send("d")
        lines = self.wait("Checkers")
        fen = next(l[5:].strip() for l in lines if l.startswith("Fen:"))
        return fen, lines[-1].split(":", 1)[1].strip() != ""

    def legal(self):
        self.send("go perft 1")
        lines = self.wait("Nodes searched")
        return [l.split(":")[0] for l in lines if ":" in l and not l.startswith("Nodes")]

    def search(self, limit):
        """`go <limit>`: ((kind, value) of the last score line, "cp" or "mate", or None; the best move)."""
        self.send("go " + limit)
        lines = self.wait("bestmove")
        score = None
        for l in lines:
            w = l.split()
            if "score" in w:
                i = w.index("score")
                score = (w[i + 1], int(w[i + 2]))
        return score, lines[-1].split()[1]

    def quit(self):
        self.send("quit")
