"""The training loop the chess and Connect6 trainers share: Adam over mini-batches of a dict of tensors,
the step size decaying along a cosine to a hundredth, the last epochs quantisation-aware (the model's
`quantised_forward`), the loss on the held-out samples after every epoch."""

import json
import math
import os
import time

import torch


def mean_loss(model, data, loss, batch_size=65536):
    """The mean of loss(model, batch) over `data` (no gradients); NaN for no data."""
    n = len(next(iter(data.values())))
    if n == 0:
        return float("nan")
    total = 0.0
    with torch.no_grad():
        for start in range(0, n, batch_size):
            b = {k: v[start:start + batch_size] for k, v in data.items()}
            total += float(loss(model, b)) * len(next(iter(b.values())))
    return total / n


def fit(model, data, held, loss, epochs, batch_size, lr, seed, log=print, qat_epochs=0, after_epoch=None,
        seconds=0):
    """Returns one dict per epoch: whether it was quantisation-aware, the loss on the fitted and the
    held-out samples, the seconds since the start. after_epoch(history) runs after each epoch (the
    trainers write the network so far). seconds > 0: after the first epoch the number of epochs is cut to
    what fits in that time at the first epoch's pace (quantisation-aware epochs counted one and a half),
    the step size's schedule and the quantisation-aware epochs following the new count."""
    gen = torch.Generator(device="cpu").manual_seed(seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    n = len(next(iter(data.values())))
    per_epoch = (n + batch_size - 1) // batch_size
    steps = [max(1, epochs * per_epoch)]  # a cell: cut with the epochs
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda k: 0.01 + 0.99 * 0.5 * (1 + math.cos(math.pi * min(k, steps[0]) / steps[0])))
    device = next(iter(data.values())).device
    history = []
    t0 = time.time()
    epoch = 0
    while epoch < epochs:
        model.quantised_forward = epoch >= epochs - qat_epochs
        order = torch.randperm(n, generator=gen).to(device)
        running, seen = 0.0, 0
        for start in range(0, n, batch_size):
            idx = order[start:start + batch_size]
            batch = {k: v[idx] for k, v in data.items()}
            value = loss(model, batch)
            opt.zero_grad(set_to_none=True)
            value.backward()
            opt.step()
            sched.step()
            model.clip()
            running += float(value) * len(idx)
            seen += len(idx)
        row = {"epoch": epoch + 1, "quantised": model.quantised_forward, "fit_loss": running / max(seen, 1),
               "held_out_loss": mean_loss(model, held, loss), "seconds": round(time.time() - t0, 1)}
        history.append(row)
        log(f"epoch {row['epoch']}: fit {row['fit_loss']:.6f}, held out {row['held_out_loss']:.6f}, "
            f"{row['seconds']} s")
        if after_epoch:
            after_epoch(history)
        if epoch == 0 and seconds > 0 and epochs > 1:
            pace = row["seconds"]
            fits = int(seconds / pace - 0.5 * min(qat_epochs, epochs))
            if fits < epochs:
                epochs = max(1, fits)
                qat_epochs = min(qat_epochs, max(0, epochs - 1))
                steps[0] = max(1, epochs * per_epoch)
                log(f"time: {epochs} epochs fit in {seconds} s at {pace} s an epoch")
        epoch += 1
    return history


def add_arguments(ap, batch, lr, lam):
    """The flags both trainers take beside their data, network and shape."""
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--qat-epochs", type=int, default=2, help="the last epochs quantisation-aware")
    ap.add_argument("--batch", type=int, default=batch)
    ap.add_argument("--lr", type=float, default=lr)
    ap.add_argument("--lambda", dest="lam", type=float, default=lam, help="weight of the score against the result")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=0, help="fewer epochs if they would take longer than this")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--threads", type=int, default=0, help="CPU threads for PyTorch (0: its default)")
    ap.add_argument("--json", help="a summary written as JSON")


def start(ap, a):
    """Checks the shared flags and sets PyTorch up by them."""
    if not 0 <= a.lam <= 1:
        ap.error("--lambda must be in [0, 1]")
    if a.threads:
        torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)


def train_and_write(model, data, held, loss, a, name):
    """fit() by the shared flags, the network written to a.out after every epoch; returns the history
    with the model back on the CPU."""
    history = fit(model, data, held, loss, a.epochs, a.batch, a.lr, a.seed,
                  log=lambda m: print(f"{name}: {m}", flush=True), qat_epochs=min(a.qat_epochs, a.epochs),
                  after_epoch=lambda h: model.quantised().save(a.out), seconds=a.seconds)
    model.cpu()
    return history


def write_summary(a, fields, history, start_loss, t0):
    """The run's summary (the flags, `fields`, the losses) as JSON where --json asks for it."""
    summary = {"epochs": a.epochs, "qat_epochs": a.qat_epochs, "batch": a.batch, "lr": a.lr, "lambda": a.lam,
               "seed": a.seed, "device": a.device,
               "device_name": torch.cuda.get_device_name(0) if a.device.startswith("cuda") else "cpu",
               "held_out_loss_start": start_loss, "history": history, "seconds": round(time.time() - t0, 1),
               "network": a.out, "network_bytes": os.path.getsize(a.out)}
    summary.update(fields)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(summary, f, indent=1)
    return summary
