"""The chess network in PyTorch (the float form of ai/include/warpmind/search/chess_network.h).

Forward, per record: each perspective's accumulator = feature_bias + Σ feature_weights[row] over its
pieces (row = king_bucket[king32] · 768 + feature), clamped to [0, 1]; the side to move's units then the
other's feed layer stack s = (pieces − 1) // 4 (layers.Head), the output in units of 400 centipawns. The
l2 and l3 weights are kept within int8's range over 64 after every step, so quantisation
(chess_network.quantise) only rounds.

Quantisation-aware training (`quantised_forward`, the last epochs, fit.fit): the forward pass computes in
the file's integer units — weights rounded to their grids, the accumulators' and layers' sums, the
shifts' rounding toward minus infinity — with the rounding's gradient taken as the identity, so the
network learns the function the engine computes (up to float32 sums past 2^24).

Loss: (sigmoid(value) − target)², value = output (plus the classical evaluation / 400 for a residual
network), target = λ · sigmoid(score / 400) + (1 − λ) · result / 2 (the game's
result for the side to move: 0, 1 or 2).
"""

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from . import chess_network as cn
from .chess_records import FEATURES, NO_FEATURE
from .layers import Head, ste_round


class ChessModel(nn.Module):
    def __init__(self, hidden, king_bucket, residual=False):
        super().__init__()
        self.hidden = hidden
        self.residual = residual  # the output corrects the classical evaluation (chess_network.h)
        self.king_bucket_list = list(king_bucket)
        self.buckets = max(self.king_bucket_list) + 1
        self.rows = self.buckets * FEATURES
        # The last row is padding (the records' empty slots): always zero.
        self.ft = nn.EmbeddingBag(self.rows + 1, hidden, mode="sum", padding_idx=self.rows)
        self.ft_bias = nn.Parameter(torch.zeros(hidden))
        self.head = Head(2 * hidden, cn.STACKS)
        self.register_buffer("king_bucket", torch.tensor(self.king_bucket_list, dtype=torch.long))
        self.quantised_forward = False
        with torch.no_grad():
            self.ft.weight.normal_(0.0, 0.1 / math.sqrt(32))
            self.ft.weight[self.rows].zero_()
            self.ft_bias.fill_(0.5)

    def rows_of(self, features, king32):
        """features: [B, 32] int (NO_FEATURE past the count); king32: [B] -> embedding rows [B, 32]."""
        rows = self.king_bucket[king32.long()][:, None] * FEATURES + features.long()
        return torch.where(features.long() == NO_FEATURE, torch.full_like(rows, self.rows), rows)

    def forward(self, features, king32, pieces):
        """features: [B, 2, 32]; king32: [B, 2]; pieces: [B] -> the output [B] in units of 400 cp."""
        stack = torch.clamp((pieces.long() - 1) // 4, 0, cn.STACKS - 1)
        if self.quantised_forward:  # the engine's integers (chess_network.h), straight-through rounding
            ftw, ftb = ste_round(self.ft.weight * cn.ACT), ste_round(self.ft_bias * cn.ACT)
            acc = [F.embedding_bag(self.rows_of(features[:, k], king32[:, k]), ftw, mode="sum",
                                   padding_idx=self.rows) + ftb for k in range(2)]
            return self.head.forward_integers(torch.clamp(torch.cat(acc, dim=1), 0.0, cn.ACT), stack)
        acc = [self.ft(self.rows_of(features[:, k], king32[:, k])) + self.ft_bias for k in range(2)]
        return self.head(torch.clamp(torch.cat(acc, dim=1), 0.0, 1.0), stack)

    def clip(self):
        self.head.clip()

    def float_weights(self):
        """The weights as NumPy float arrays in the file's layout (stack-major)."""
        w = {"feature_weights": self.ft.weight.detach().double().cpu().numpy()[:self.rows],
             "feature_bias": self.ft_bias.detach().double().cpu().numpy()}
        w.update(self.head.float_weights())
        return w

    def quantised(self):
        return cn.quantise(self.float_weights(), self.king_bucket_list, self.residual)


def tensors(recs, device):
    """The columns training needs, on `device`."""
    return {
        "features": torch.from_numpy(recs["features"].astype(np.int32)).to(device),
        "king32": torch.from_numpy(recs["king32"].astype(np.int64)).to(device),
        "pieces": torch.from_numpy(recs["count"].astype(np.int64)).to(device),
        "score": torch.from_numpy(recs["score"].astype(np.float32)).to(device),
        "result": torch.from_numpy(recs["result"].astype(np.float32)).to(device),
        "classical": torch.from_numpy(recs["classical"].astype(np.float32)).to(device),
    }


def loss(lam):
    """The loss of a batch for the weight λ of the score against the result."""
    def of(model, batch):
        out = model(batch["features"], batch["king32"], batch["pieces"])
        if model.residual:
            out = out + batch["classical"] / cn.SCALE
        target = lam * torch.sigmoid(batch["score"] / cn.SCALE) + (1 - lam) * batch["result"] / 2
        return torch.mean((torch.sigmoid(out) - target) ** 2)
    return of
