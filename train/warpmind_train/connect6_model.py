"""The Connect6 network in PyTorch (the float form of ai/include/warpmind/search/connect6_network.h).

Value: each perspective's accumulator = bias + Σ pattern_weights[code] over the windows holding a stone
(Black's codes, and White's: the digits 1 and 2 exchanged), clamped to [0, 1]; the side to move's units
then the other's feed layers.Head; the output in units of 400 (sigmoid(output) is the side to move's
expected score). Quantisation-aware in the last epochs as the chess model is.

Policy: every cell's score for the side to move, Σ over the windows through it of cell_weights[code of
the window from the mover's view][the cell's place in it]; trained as a softmax over the candidate cells
(empty cells within two of a stone, as the search takes them) towards the labelling search's two stones.

Loss: (sigmoid(value) − target)² + μ · the policy's cross-entropy, target = λ · sigmoid(score / K) +
(1 − λ) · result / 2 with K the scale fitted to the labels (fit_scale).
"""

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from . import connect6_network as c6n
from .layers import Head, ste_round

CELLS, WINDOWS = 361, 924


class Connect6Model(nn.Module):
    def __init__(self, features, windows):
        super().__init__()
        self.features = features
        self.register_buffer("windows", torch.as_tensor(np.asarray(windows), dtype=torch.long))  # [924, 6]
        self.register_buffer("swap", torch.as_tensor(c6n.SWAP, dtype=torch.long))
        self.patterns = nn.EmbeddingBag(c6n.CODES, features, mode="sum", padding_idx=0)  # code 0: an empty window
        self.bias = nn.Parameter(torch.full((features,), 0.5))
        self.head = Head(2 * features, 1)
        self.cells = nn.Parameter(torch.zeros(c6n.CODES, c6n.CELLS_PER_WINDOW))
        self.quantised_forward = False
        with torch.no_grad():
            self.patterns.weight.normal_(0.0, 0.02)
            self.patterns.weight[0].zero_()

    def value(self, codes, black_to_move):
        """codes: [B, 924] from Black's view; black_to_move: [B] bool -> the value [B] in units of 400."""
        stack = torch.zeros(len(codes), dtype=torch.long, device=codes.device)
        views = (codes, self.swap[codes])
        if self.quantised_forward:
            pw, b = ste_round(self.patterns.weight * c6n.ACT), ste_round(self.bias * c6n.ACT)
            acc = [F.embedding_bag(v, pw, mode="sum", padding_idx=0) + b for v in views]
            top = c6n.ACT
        else:
            acc = [self.patterns(v) + self.bias for v in views]
            top = 1.0
        btm = black_to_move[:, None]
        us, them = torch.where(btm, acc[0], acc[1]), torch.where(btm, acc[1], acc[0])
        x = torch.clamp(torch.cat([us, them], dim=1), 0.0, top)
        return self.head.forward_integers(x, stack) if self.quantised_forward else self.head(x, stack)

    def cell_logits(self, codes, black_to_move):
        """Every cell's policy score for the side to move [B, 361]."""
        mover = torch.where(black_to_move[:, None], codes, self.swap[codes])
        out = torch.zeros(len(codes), CELLS, device=codes.device)
        for i in range(c6n.CELLS_PER_WINDOW):
            out = out.scatter_add(1, self.windows[:, i].expand(len(codes), -1), self.cells[mover, i])
        return out

    def clip(self):
        self.head.clip()

    def float_weights(self):
        w = {"pattern_weights": self.patterns.weight.detach().double().cpu().numpy(),
             "pattern_bias": self.bias.detach().double().cpu().numpy(),
             "cell_weights": self.cells.detach().double().cpu().numpy()}
        for k, v in self.head.float_weights().items():
            w[k] = v[0]  # one stack
        return w

    def quantised(self):
        return c6n.quantise(self.float_weights())


def fit_scale(score, result):
    """The K in sigmoid(score / K) closest to the results (least squares), by golden-section search on
    log K over [1, 100,000]."""
    s, r = np.asarray(score, dtype=np.float64), np.asarray(result, dtype=np.float64) / 2

    def err(log_k):
        return float(np.mean((1 / (1 + np.exp(-s / math.exp(log_k))) - r) ** 2))

    lo, hi = 0.0, math.log(100000.0)
    g = (math.sqrt(5) - 1) / 2
    for _ in range(60):
        a, b = hi - g * (hi - lo), lo + g * (hi - lo)
        if err(a) < err(b):
            hi = b
        else:
            lo = a
    return math.exp((lo + hi) / 2)


def near_mask(cells):
    """Candidate cells [B, 361] bool: empty and within two (king steps) of a stone."""
    stones = (cells != 0).float().view(-1, 1, 19, 19)
    near = F.max_pool2d(stones, kernel_size=5, stride=1, padding=2).view(-1, CELLS) > 0
    return near & (cells == 0)


def tensors(cells, codes, recs, device):
    """The columns training needs, on `device`."""
    best = recs["best"].astype(np.int64)
    near = near_mask(torch.from_numpy(cells))
    rows = torch.arange(len(best))
    for k in range(2):  # the labelling search's stones are candidates, near or not
        near[rows, torch.from_numpy(best[:, k])] = True
    return {
        "codes": torch.from_numpy(codes.astype(np.int64)).to(device),
        "black": torch.from_numpy(recs["side"] == 1).to(device),
        "near": near.to(device),
        "best": torch.from_numpy(best).to(device),
        "score": torch.from_numpy(recs["score"].astype(np.float32)).to(device),
        "result": torch.from_numpy(recs["result"].astype(np.float32)).to(device),
    }


def loss(lam, scale, mu):
    def of(model, batch):
        v = model.value(batch["codes"], batch["black"])
        target = lam * torch.sigmoid(batch["score"] / scale) + (1 - lam) * batch["result"] / 2
        value_loss = torch.mean((torch.sigmoid(v) - target) ** 2)
        if mu == 0:
            return value_loss
        logits = model.cell_logits(batch["codes"], batch["black"]).masked_fill(~batch["near"], -1e9)
        logp = torch.log_softmax(logits, dim=1)
        policy_loss = -0.5 * (logp.gather(1, batch["best"][:, :1]) + logp.gather(1, batch["best"][:, 1:])).mean()
        return value_loss + mu * policy_loss
    return of
