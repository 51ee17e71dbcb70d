"""The dense layers after the accumulators, shared by the chess and Connect6 models (the float form of
ai/src/search/nnue_layers.h): `stacks` copies of inputs → 16 → 32 → 1 with [0, 1] clamps between, one
chosen per sample; and the same in the file's integer units with straight-through rounding for
quantisation-aware training."""

import torch
from torch import nn

L2, L3 = 16, 32
ACT, SHIFT, OUT_SCALE = 127, 6, 256
WEIGHT_LIMIT = 127 / 64  # l2 and l3 weights: int8 over 64


def ste_round(t):
    """Rounded, with the identity's gradient."""
    return t + (torch.round(t) - t).detach()


def ste_floor(t):
    return t + (torch.floor(t) - t).detach()


class Head(nn.Module):
    def __init__(self, inputs, stacks=1):
        super().__init__()
        self.inputs, self.stacks = inputs, stacks
        self.l2 = nn.Linear(inputs, L2 * stacks)
        self.l3 = nn.Linear(L2, L3 * stacks)
        self.out = nn.Linear(L3, stacks)
        self.clip()

    def _pick(self, t, stack, width):
        pick = torch.arange(t.shape[0], device=t.device)
        return t.view(-1, self.stacks, width)[pick, stack]

    def forward(self, x, stack):
        """x: [B, inputs] in [0, 1]; stack: [B] -> the output [B]."""
        h2 = torch.clamp(self._pick(self.l2(x), stack, L2), 0.0, 1.0)
        h3 = torch.clamp(self._pick(self.l3(h2), stack, L3), 0.0, 1.0)
        return self._pick(self.out(h3), stack, 1)[:, 0]

    def forward_integers(self, x, stack):
        """x: [B, inputs], integers 0..127 -> the output [B] (o / (127 · 256)), computed as the engine does."""
        one = 1 << SHIFT
        l2w = torch.clamp(ste_round(self.l2.weight * one), -128, 127)
        h2 = self._pick(x @ l2w.t() + ste_round(self.l2.bias * ACT * one), stack, L2)
        h2 = torch.clamp(ste_floor(h2 / one), 0.0, ACT)
        l3w = torch.clamp(ste_round(self.l3.weight * one), -128, 127)
        h3 = self._pick(h2 @ l3w.t() + ste_round(self.l3.bias * ACT * one), stack, L3)
        h3 = torch.clamp(ste_floor(h3 / one), 0.0, ACT)
        o = h3 @ ste_round(self.out.weight * OUT_SCALE).t() + ste_round(self.out.bias * ACT * OUT_SCALE)
        return self._pick(o, stack, 1)[:, 0] / (ACT * OUT_SCALE)

    def clip(self):
        with torch.no_grad():
            for layer in (self.l2, self.l3):
                layer.weight.clamp_(-WEIGHT_LIMIT, WEIGHT_LIMIT)

    def float_weights(self):
        """The layers as NumPy float arrays in the files' layout (stack-major)."""
        t = lambda p: p.detach().double().cpu().numpy()  # noqa: E731
        s = self.stacks
        return {
            "l2_weights": t(self.l2.weight).reshape(s, L2, self.inputs),
            "l2_bias": t(self.l2.bias).reshape(s, L2),
            "l3_weights": t(self.l3.weight).reshape(s, L3, L2),
            "l3_bias": t(self.l3.bias).reshape(s, L3),
            "out_weights": t(self.out.weight).reshape(s, L3),
            "out_bias": t(self.out.bias).reshape(s),
        }
