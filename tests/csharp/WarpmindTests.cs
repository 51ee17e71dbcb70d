// Warpmind.dll (NUnit, run by scripts/test.sh under mono against the shared build's libwarpmind_c.so):
// the crowd and the combat volleys against oracles written here from their contracts (positions on a
// 0.25 grid, so every squared distance is exact and the oracles' float arithmetic cannot differ), the
// field and the engines against known values, and every bad argument an exception with the library's
// message, the object unchanged.
// The fixture runs once per backend named in WARPMIND_TEST_BACKENDS (default "cpu"; "cpu,cuda" on a GPU
// machine, as gpu-run.sh's bindings step sets it), its context asserted to be on that backend. A backend not
// named is ignored; a cuda run where no GPU is usable is ignored, or fails with WARPMIND_TEST_REQUIRE_GPU=1.
using System;
using System.Collections.Generic;
using NUnit.Framework;
using Warpmind;

namespace Warpmind.Tests
{
    [TestFixture(Backend.Cpu)]
    [TestFixture(Backend.Cuda)]
    public class WarpmindTests
    {
        readonly Backend backend;
        Context ctx;
        public WarpmindTests(Backend backend) { this.backend = backend; }

        [TestFixtureSetUp]
        public void CheckBackend()
        {
            string name = backend == Backend.Cuda ? "cuda" : "cpu";
            string listed = Environment.GetEnvironmentVariable("WARPMIND_TEST_BACKENDS") ?? "cpu";
            if (Array.IndexOf(Array.ConvertAll(listed.Split(','), b => b.Trim()), name) < 0)
                Assert.Ignore("backend " + name + " is not in WARPMIND_TEST_BACKENDS (" + listed + ")");
            if (backend != Backend.Cuda) return;
            try { new Context(Backend.Cuda, 2).Dispose(); }
            catch (Exception e)
            {
                if (Environment.GetEnvironmentVariable("WARPMIND_TEST_REQUIRE_GPU") == "1") Assert.Fail("no usable GPU: " + e.Message);
                Assert.Ignore("no usable GPU: " + e.Message);
            }
        }
        [SetUp] public void Open() { ctx = new Context(backend, 2); }
        [TearDown] public void Close() { if (ctx != null) ctx.Dispose(); ctx = null; }  // SetUp may have failed

        [Test]
        public void ContextReportsItsBackendAndRefusesWhatCannotRun()
        {
            Assert.AreEqual("0.2.0", Context.Version);
            Assert.AreEqual(backend == Backend.Cuda, ctx.UsesGpu);
            Assert.Throws<ArgumentException>(() => new Context((Backend)42));
            Assert.Throws<ArgumentException>(() => new Context(Backend.Cpu, 4097));
        }

        [Test]
        public void ContextLogsItsBackendChoiceToTheCallback()
        {
            var lines = new System.Collections.Generic.List<string>();
            var levels = new System.Collections.Generic.List<LogLevel>();
            using (var c = new Context(Backend.Auto, 1, (level, message) => { levels.Add(level); lines.Add(message); }))
            {
                Assert.AreEqual(1, lines.Count);
                if (c.UsesGpu) { Assert.AreEqual(LogLevel.Info, levels[0]); StringAssert.StartsWith("using CUDA device", lines[0]); }
                else { Assert.AreEqual(LogLevel.Warning, levels[0]); StringAssert.StartsWith("using the CPU backend (", lines[0]); }
            }
            using (var c = new Context(Backend.Auto, 1, (level, message) => { throw new InvalidOperationException(); }))
                Assert.IsNotNull(c);  // the callback's exception is dropped
        }

        [Test]
        public void FieldSamplesTheChargeAndRejectsBadEntities()
        {
            var ramp = ChargeKind.Linear(4, 0, 50, 30, -2, 58);  // 50 up to 4, then 58 - 2d down to 0 at 29
            using (var f = new Field(ctx, 0, 0, 64, 64, 64, 64, new[] { ramp }, new[] { new LayerRule(0, 0, 0) }, 1))
            {
                f.Build(new[] { new Entity(10.5f, 10.5f, 0) });  // a cell centre
                var pts = new[] { new Vec2(10.5f, 10.5f), new Vec2(20.5f, 10.5f), new Vec2(50.5f, 50.5f) };
                var v = new float[3];
                f.Sample(0, pts, v);
                Assert.AreEqual(50f, v[0]);
                Assert.AreEqual(38f, v[1]);  // d = 10: 58 - 20
                Assert.AreEqual(0f, v[2]);   // beyond the cut-off
                var moves = new Move[1];
                f.BestMove(0, new[] { new Vec2(12.5f, 10.5f) }, 5, moves);
                Assert.AreEqual(10, moves[0].CellX);  // the charge's cell is the window's best
                Assert.AreEqual(50f, moves[0].Value);
                var steered = new Vec2[1];
                var heading = new float[] { 9f };
                f.Steer(new[] { new Vec2(12.5f, 10.5f) }, new byte[] { 0 }, 5, 1f, steered, heading);
                // One unit towards the centre of the window's best cell (the best move's: ties in the flat top of
                // the ramp go to the first in row-major order).
                double dx = moves[0].Target.X - 12.5, dy = moves[0].Target.Y - 10.5, d = Math.Sqrt(dx * dx + dy * dy);
                Assert.Greater(d, 1.0);
                Assert.AreEqual(12.5 + dx / d, steered[0].X, 1e-5);
                Assert.AreEqual(10.5 + dy / d, steered[0].Y, 1e-5);
                Assert.AreEqual(Math.Atan2(dy, dx), heading[0], 1e-5);
                f.Steer(new[] { new Vec2(12.5f, 10.5f) }, new byte[] { 1 }, 5, 1f, steered);  // no layer 1: stays
                Assert.AreEqual(12.5f, steered[0].X);
                Assert.Throws<ArgumentException>(() => f.Steer(pts, new byte[3], 5, -1f, new Vec2[3]));
                Assert.Throws<ArgumentException>(() => f.Build(new[] { new Entity(float.NaN, 1, 0) }));
                f.Sample(0, pts, v);
                Assert.AreEqual(50f, v[0]);  // unchanged by the refused build
                Assert.Throws<ArgumentException>(() => f.BestMove(0, pts, 64, new Move[3]));
                Assert.Throws<ArgumentException>(() => f.Sample(0, pts, new float[2]));
            }
        }

        // The crowd's segment test (crowd_solver.h) for moves that cross at most one grid line per axis: the
        // end cells, and where both axes change, the cell entered first (both at a corner), from the crossing
        // parameters in float.
        static bool PathBlocked(Vec2 o, Vec2 p, float cw, float ch, byte[,] blocked)
        {
            float u0 = o.X / cw, v0 = o.Y / ch, u1 = p.X / cw, v1 = p.Y / ch;
            int x0 = Math.Min(blocked.GetLength(1) - 1, (int)Math.Floor(u0)), y0 = Math.Min(blocked.GetLength(0) - 1, (int)Math.Floor(v0));
            int x1 = Math.Min(blocked.GetLength(1) - 1, (int)Math.Floor(u1)), y1 = Math.Min(blocked.GetLength(0) - 1, (int)Math.Floor(v1));
            if (blocked[y0, x0] != 0 || blocked[y1, x1] != 0) return true;
            if (x0 == x1 || y0 == y1) return false;
            float tx = ((float)(x1 > x0 ? x0 + 1 : x0) - u0) / (u1 - u0), ty = ((float)(y1 > y0 ? y0 + 1 : y0) - v0) / (v1 - v0);
            if (tx <= ty && blocked[y0, x1] != 0) return true;
            return tx >= ty && blocked[y1, x0] != 0;
        }

        // The crowd's contract (crowd_solver.h), Strict rule.
        static Verdict[] CrowdOracle(Vec2[] old, Vec2[] prop, float w, float h, float r, byte[,] blocked)
        {
            int n = old.Length;
            var v = new Verdict[n];
            float cw = w / blocked.GetLength(1), ch = h / blocked.GetLength(0), d2 = 4 * r * r;
            for (int i = 0; i < n; ++i)
            {
                Vec2 p = prop[i];
                if (p.X == old[i].X && p.Y == old[i].Y) { v[i] = Verdict.Stayed; continue; }
                if (!(p.X >= 0 && p.X < w && p.Y >= 0 && p.Y < h)) { v[i] = Verdict.OutOfWorld; continue; }
                if (PathBlocked(old[i], p, cw, ch, blocked)) { v[i] = Verdict.Blocked; continue; }
                bool hit = false;
                for (int j = 0; j < n && !hit; ++j)
                {
                    if (j == i) continue;
                    float ax = p.X - old[j].X, ay = p.Y - old[j].Y, bx = p.X - prop[j].X, by = p.Y - prop[j].Y;
                    hit = ax * ax + ay * ay < d2 || bx * bx + by * by < d2;
                }
                v[i] = hit ? Verdict.Collision : Verdict.Moved;
            }
            return v;
        }

        [Test]
        public void CrowdKeepsAgentsOfSeveralSizesApartByTheSumOfTheirRadii()
        {
            using (var c = new Crowd(ctx, 0, 0, 20, 20, 1.0f, variant: CrowdVariant.CpuReference, minRadius: 0.25f))
            {
                var start = new[] { new Vec2(5, 5), new Vec2(6.5f, 5) };
                Assert.Throws<ArgumentException>(() => c.Reset(start, null, new[] { 1.0f, 0.6f }));  // 1.6 > 1.5
                c.Reset(start, null, new[] { 0.25f, 0f });  // 0: the crowd's radius
                CollectionAssert.AreEqual(new[] { 0.25f, 1.0f }, c.Radii());
                CollectionAssert.AreEqual(new uint[] { 2 }, c.Spawn(new[] { new Vec2(7.9f, 5) }, null, new[] { 0.25f }));
                Assert.Throws<ArgumentException>(() => c.Spawn(new[] { new Vec2(15, 15) }, null, new[] { 0.2f }));
                // Towards the agent of radius 1: 1.3 away moves, 1.2 (below 1.25) is refused.
                Assert.AreEqual((UIntPtr)1, c.Step(new[] { new Vec2(5, 5), new Vec2(6.5f, 5), new Vec2(7.8f, 5) }).Moved);
                Assert.AreEqual((UIntPtr)1, c.Step(new[] { new Vec2(5, 5), new Vec2(6.5f, 5), new Vec2(7.7f, 5) }).Collisions);
            }
        }

        [Test]
        public void CrowdEqualsItsContractOnAGrid()
        {
            var blocked = new byte[8, 8];
            for (int y = 0; y < 8; ++y) for (int x = 0; x < 8; ++x) blocked[y, x] = (byte)((x * 7 + y * 3) % 6 == 0 ? 1 : 0);
            var rng = new Random(7);
            var start = new List<Vec2>();
            for (int y = 0; y < 16; ++y)
                for (int x = 0; x < 16; ++x)
                {
                    var p = new Vec2(2 * x + 1, 2 * y + 1);
                    if ((x + y) % 2 == 0 && blocked[(int)(p.Y / 4), (int)(p.X / 4)] == 0) start.Add(p);
                }
            var now = start.ToArray();
            int n = now.Length;
            var seen = new HashSet<Verdict>();
            using (var c = new Crowd(ctx, 0, 0, 32, 32, 0.5f, blocked, CrowdRule.Strict, CrowdVariant.CpuReference))
            {
                c.Reset(now);
                var prop = new Vec2[n];
                var verdicts = new Verdict[n];
                var after = new Vec2[n];
                for (int tick = 0; tick < 30; ++tick)
                {
                    for (int i = 0; i < n; ++i)  // steps of -1.5..1.5 in quarters: exact squares
                        prop[i] = new Vec2(now[i].X + 0.25f * rng.Next(-6, 7), now[i].Y + 0.25f * rng.Next(-6, 7));
                    Verdict[] want = CrowdOracle(now, prop, 32, 32, 0.5f, blocked);
                    CrowdStats s = c.Step(prop);
                    c.Verdicts(verdicts);
                    c.Positions(after);
                    for (int i = 0; i < n; ++i)
                    {
                        Assert.AreEqual(want[i], verdicts[i], "agent " + i + " tick " + tick);
                        Vec2 expect = want[i] == Verdict.Moved ? prop[i] : now[i];
                        Assert.AreEqual(expect.X, after[i].X);
                        Assert.AreEqual(expect.Y, after[i].Y);
                        seen.Add(verdicts[i]);
                    }
                    Assert.AreEqual((ulong)n, (ulong)s.Moved + (ulong)s.Stayed + (ulong)s.OutOfWorld + (ulong)s.Blocked + (ulong)s.Collisions);
                    Assert.AreEqual(0UL, (ulong)s.TooFar);
                    Array.Copy(after, now, n);
                }
                Assert.IsTrue(seen.Contains(Verdict.Moved) && seen.Contains(Verdict.Stayed) && seen.Contains(Verdict.Blocked) &&
                              seen.Contains(Verdict.Collision) && seen.Contains(Verdict.OutOfWorld), "every verdict reached");
                Assert.Throws<ArgumentException>(() => c.Step(new Vec2[n - 1]));
                Assert.Throws<ArgumentException>(() => c.Reset(new[] { new Vec2(1, 1), new Vec2(1.5f, 1) }));  // overlapping
                Assert.AreEqual(n, c.Count);
                var keep = new byte[n];
                for (int i = 0; i < n; ++i) keep[i] = (byte)(i % 2);
                c.Retain(keep);
                Assert.AreEqual(n / 2, c.Count);
                var kept = new Vec2[c.Count];
                c.Positions(kept);
                for (int i = 0; i < kept.Length; ++i) Assert.AreEqual(now[2 * i + 1].X, kept[i].X);
                // Stable ids through retain, spawn and despawn; save and restore into another crowd.
                var ids = c.Ids();
                for (int i = 0; i < ids.Length; ++i) Assert.AreEqual((uint)(2 * i + 1), ids[i]);
                var state = c.Save();
                Assert.Throws<ArgumentException>(() => c.Spawn(new[] { kept[0] }));  // onto an agent
                c.Despawn(new[] { ids[0] });
                Assert.Throws<ArgumentException>(() => c.Despawn(new[] { ids[0] }));
                Assert.AreEqual(ids.Length - 1, c.Count);
                c.Restore(state);
                Assert.AreEqual(ids.Length, c.Count);
                CollectionAssert.AreEqual(ids, c.Ids());
                Assert.Throws<ArgumentException>(() => c.Restore(new byte[] { 1, 2, 3 }));
            }
            Assert.Throws<ArgumentException>(() => new Crowd(ctx, 0, 0, 32, 32, 0.5f, null, (CrowdRule)9));
            Assert.Throws<UnavailableException>(() => new Crowd(ctx, 0, 0, 32, 32, 0.5f, null, CrowdRule.Strict, CrowdVariant.GpuStaticGrid));
        }

        [Test]
        public void CombatEqualsItsContractOnAGrid()
        {
            // Two lines of units 4 apart, range 4: each fires at the nearest enemy (ties: the lowest id).
            var rng = new Random(3);
            int n = 40;
            var pos = new Vec2[n];
            var teams = new byte[n];
            var hp = new float[n];
            for (int i = 0; i < n; ++i)
            {
                teams[i] = (byte)(i % 2);
                pos[i] = new Vec2(teams[i] == 0 ? 10 : 14, 2 * (i / 2) + rng.Next(0, 3));
                hp[i] = 10 + rng.Next(0, 30);
            }
            using (var c = new Combat(ctx, 0, 0, 64, 64, 4.5f, 12f, 1, CombatVariant.Cpu))
            {
                c.Reset(teams, hp);
                var keep = new byte[n];
                c.Fire(pos, keep);
                // The oracle: shots per target, then HP and deaths.
                var shots = new int[n];
                for (int i = 0; i < n; ++i)
                {
                    int best = -1;
                    float bd = 0;
                    for (int j = 0; j < n; ++j)
                    {
                        if (teams[j] == teams[i]) continue;
                        float dx = pos[j].X - pos[i].X, dy = pos[j].Y - pos[i].Y, d2 = dx * dx + dy * dy;
                        if (d2 <= 4.5f * 4.5f && (best < 0 || d2 < bd)) { best = j; bd = d2; }
                    }
                    if (best >= 0) ++shots[best];
                }
                int alive = 0;
                for (int i = 0; i < n; ++i)
                {
                    bool lives = hp[i] - 12f * shots[i] > 0;
                    Assert.AreEqual(lives ? 1 : 0, keep[i], "unit " + i);
                    alive += lives ? 1 : 0;
                }
                Assert.Less(alive, n);  // some died
                Assert.AreEqual(alive, c.Count);
                var t = new byte[alive];
                var h = new float[alive];
                var cd = new int[alive];
                c.State(t, h, cd);
                for (int i = 0, k = 0; i < n; ++i)
                    if (keep[i] != 0)
                    {
                        Assert.AreEqual(teams[i], t[k]);
                        Assert.AreEqual(hp[i] - 12f * shots[i], h[k]);
                        ++k;
                    }
                Assert.Throws<ArgumentException>(() => c.Fire(new Vec2[alive + 1], new byte[alive + 1]));
                Assert.Throws<ArgumentException>(() => c.Reset(new byte[] { 0 }, new float[] { 0f }));  // HP must be > 0
                Assert.AreEqual(alive, c.Count);
            }
        }

        // The matcher's n pairs in got equal the brute force's, in order (and there are enough to mean something).
        static void AssertPairs(List<Pair> want, Pair[] got, int n)
        {
            Assert.Greater(want.Count, 10);
            Assert.AreEqual(want.Count, n);
            for (int i = 0; i < n; ++i)
            {
                Assert.AreEqual(want[i].Publication, got[i].Publication, "pair " + i);
                Assert.AreEqual(want[i].Subscription, got[i].Subscription, "pair " + i);
            }
        }

        [Test]
        public void RegionsEqualABruteForceOverlap()
        {
            // Integer boxes (exact); a pair overlaps when on both axes max(lo) < min(hi): an empty box matches nothing.
            var rng = new Random(11);
            var boxes = new List<float[]>();
            var kinds = new List<RegionKind>();
            using (var r = new Regions(ctx, DdmVariant.CpuSort))
            {
                for (int i = 0; i < 200; ++i)
                {
                    var kind = i % 2 == 0 ? RegionKind.Publication : RegionKind.Subscription;
                    float x = rng.Next(0, 50), y = rng.Next(0, 50);
                    var b = new float[] { x, y, x + rng.Next(0, 8), y + rng.Next(0, 8) };  // some empty
                    Assert.AreEqual((uint)i, r.Add(kind, b[0], b[1], b[2], b[3]));
                    boxes.Add(b);
                    kinds.Add(kind);
                }
                var want = new List<Pair>();
                for (int p = 0; p < boxes.Count; ++p)
                    for (int q = 0; q < boxes.Count; ++q)
                    {
                        if (kinds[p] != RegionKind.Publication || kinds[q] != RegionKind.Subscription) continue;
                        float[] a = boxes[p], b = boxes[q];
                        if (Math.Max(a[0], b[0]) < Math.Min(a[2], b[2]) && Math.Max(a[1], b[1]) < Math.Min(a[3], b[3]))
                            want.Add(new Pair { Publication = (uint)p, Subscription = (uint)q });
                    }
                Pair[] got = null;
                int n = r.Match(ref got);
                AssertPairs(want, got, n);
                Assert.Throws<ArgumentException>(() => r.Add(RegionKind.Publication, 5, 5, 1, 1));  // lo > hi
                Assert.Throws<ArgumentException>(() => r.Update(9999, 0, 0, 1, 1));               // no such region
                r.Remove(0);
                Assert.AreEqual(n - want.FindAll(x => x.Publication == 0).Count, r.Match(ref got));
            }
        }

        [Test]
        public void AoiNotifiesMoversOfThemselvesAndCountsWhatItRejects()
        {
            var players = new Player[50];
            for (int i = 0; i < players.Length; ++i) players[i] = new Player(4 * (i % 10) + 2, 4 * (i / 10) + 2, 100);
            using (var a = new Aoi(ctx, 0, 0, 40, 40, 8, AoiShape.Square, 2, 6, true, AoiVariant.CpuFast))
            {
                a.Reset(players);
                var commands = new Command[players.Length];
                for (int i = 0; i < commands.Length; ++i) commands[i] = Command.Move((uint)i, 1, 0);
                commands[7] = Command.Move(7, 5, 0);         // beyond max_move: rejected as a bad move
                commands[8] = Command.Attack(8, 9, 10);       // 4 apart: in range
                commands[10] = Command.Heal(10, 25);          // its own HP up: 125
                AoiTickStats s = a.Tick(commands);
                Assert.AreEqual((ulong)1, (ulong)s.Rejected2);
                Assert.AreEqual((ulong)49, (ulong)s.Accepted);
                Notification[] notes = null;
                int n = a.Notifications(ref notes);
                Assert.AreEqual((ulong)n, (ulong)s.Notifications);
                var now = new Player[players.Length];
                a.Players(now);
                Assert.AreEqual(3f, now[0].X);
                Assert.AreEqual(90, now[9].Hp);
                Assert.AreEqual(125, now[10].Hp);
                bool selfX = false, hp = false;
                for (int i = 0; i < n; ++i)
                {
                    if (notes[i].Receiver == 0 && notes[i].Subject == 0 && notes[i].Field == 0) selfX |= notes[i].AsFloat == 3f;
                    if (notes[i].Receiver == 9 && notes[i].Subject == 9 && notes[i].Field == 2) hp |= notes[i].AsInt == 90;
                }
                Assert.IsTrue(selfX && hp, "each changed player is told of itself");
                VisibilityEvent[] entered = null, left = null;
                int ne, nl;
                a.Events(ref entered, out ne, ref left, out nl);
                Assert.AreEqual((ulong)ne, (ulong)s.Entered);
                Assert.Throws<ArgumentException>(() => a.Reset(new[] { new Player(float.NaN, 0, 1) }));
                Assert.AreEqual(players.Length, a.Count);
                var state = a.Save();
                Assert.AreEqual(64 + 12 * players.Length, state.Length);
                using (var b = new Aoi(ctx, 0, 0, 40, 40, 8, AoiShape.Square, 2, 6, true, AoiVariant.CpuGrid))
                {
                    b.Restore(state);
                    var again = new Player[players.Length];
                    b.Players(again);
                    CollectionAssert.AreEqual(now, again);
                    Assert.Throws<ArgumentException>(() => b.Restore(new byte[] { 1, 2, 3 }));
                    Assert.AreEqual(players.Length, b.Count);
                }
            }
        }

        [Test]
        public void ChunkedTickHandsOverTheTicksNotificationsInReceiverOrder()
        {
            // Two equal worlds, the same commands: one tick kept, one in chunks of at most 40 notifications.
            var rng = new Random(5);
            var players = new Player[300];
            for (int i = 0; i < players.Length; ++i)
                players[i] = new Player { X = rng.Next(0, 100), Y = rng.Next(0, 100), Hp = 50 };
            var commands = new Command[players.Length];
            for (int i = 0; i < commands.Length; ++i)
                commands[i] = new Command { Player = (uint)i, Dx = rng.Next(-3, 4), Dy = rng.Next(-3, 4) };
            using (var kept = new Aoi(ctx, 0, 0, 100, 100, 12, AoiShape.Circle, 5, 5, true, AoiVariant.CpuFast))
            using (var chunked = new Aoi(ctx, 0, 0, 100, 100, 12, AoiShape.Circle, 5, 5, true, AoiVariant.CpuFast, 40))
            {
                kept.Reset(players);
                chunked.Reset(players);
                AoiTickStats a = kept.Tick(commands);
                Notification[] want = null;
                int n = kept.Notifications(ref want);
                var got = new List<Notification>();
                Notification[] buffer = null;
                uint nextReceiver = 0;
                int chunks = 0;
                AoiTickStats b = chunked.TickChunked(commands, chunk =>
                {
                    Assert.AreEqual(nextReceiver, chunk.FirstReceiver);  // every receiver once, in order
                    Assert.AreEqual((ulong)got.Count, chunk.FirstNotification);
                    nextReceiver = chunk.EndReceiver;
                    int k = chunk.CopyTo(ref buffer);
                    for (int i = 0; i < k; ++i) got.Add(buffer[i]);
                    ++chunks;
                });
                Assert.AreEqual((ulong)a.Notifications, (ulong)b.Notifications);
                Assert.Greater(n, 200);
                Assert.Greater(chunks, 3);
                Assert.AreEqual(n, got.Count);
                for (int i = 0; i < n; ++i)
                {
                    Assert.AreEqual(want[i].Receiver, got[i].Receiver, "notification " + i);
                    Assert.AreEqual(want[i].Subject, got[i].Subject, "notification " + i);
                    Assert.AreEqual(want[i].Value, got[i].Value, "notification " + i);
                }
                Assert.Throws<InvalidOperationException>(() => chunked.TickChunked(commands, c => { throw new InvalidOperationException("stop"); }));
            }
        }

        [Test]
        public void NavigationFieldsOfACorridor()
        {
            // One row of 10 cells, cell 6 blocked, cost 2 each: distance to the goal at x = 1 is 2 |x - 1| west of
            // the wall, +infinity east of it; directions point at the goal.
            var costs = new byte[10];
            for (int x = 0; x < 10; ++x) costs[x] = (byte)(x == 6 ? 0 : 2);
            var d = new float[10];
            var dir = new sbyte[10];
            Navigation.DistanceFields(ctx, 10, 1, costs, new[] { 1, 0 }, d, dir);
            for (int x = 0; x < 6; ++x) Assert.AreEqual(2f * Math.Abs(x - 1), d[x], "cell " + x);
            for (int x = 6; x < 10; ++x) Assert.IsTrue(float.IsPositiveInfinity(d[x]), "cell " + x);
            Assert.AreEqual(-1, dir[1]);
            Assert.AreEqual(4, dir[3]);  // west
            Assert.AreEqual(0, dir[0]);  // east
            var steer = new Vec2[2];
            var dist = new float[2];
            Navigation.Steer(10, 1, d, dir, new[] { new Vec2(3.5f, 0.5f), new Vec2(20, 0) }, steer, dist);
            Assert.AreEqual(-1f, steer[0].X);
            Assert.AreEqual(4f, dist[0]);
            Assert.IsTrue(float.IsPositiveInfinity(dist[1]));
            Assert.Throws<ArgumentException>(() => Navigation.DistanceFields(ctx, 10, 1, costs, new[] { 6, 0 }, d, dir));  // a goal on the wall
            // Goals at x = 1 and x = 4: the walk to the nearer one, none on either goal.
            Navigation.GoalSetField(ctx, 10, 1, costs, new[] { 1, 0, 4, 0 }, d, dir);
            for (int x = 0; x < 6; ++x) Assert.AreEqual(2f * Math.Min(Math.Abs(x - 1), Math.Abs(x - 4)), d[x], "cell " + x);
            Assert.AreEqual(-1, dir[4]);
            Assert.AreEqual(0, dir[3]);  // east, to x = 4
            Assert.Throws<ArgumentException>(() => Navigation.GoalSetField(ctx, 10, 1, costs, new[] { 1 }, d, dir));
        }

        [Test]
        public void NavigationSizesSightAndUnreachableGoals()
        {
            // 9 x 5 open cells with a wall down column 4: clearance is the distance to the wall or the edge.
            const int w = 9, h = 5;
            var costs = new byte[w * h];
            for (int i = 0; i < costs.Length; ++i) costs[i] = (byte)(i % w == 4 ? 0 : 1);
            var clear = new ushort[w * h];
            Navigation.Clearance(w, h, costs, clear);
            Assert.AreEqual(0, clear[2 * w + 4]);
            Assert.AreEqual(2, clear[2 * w + 2]);  // two from the wall and from the edges
            Assert.AreEqual(1, clear[0]);
            var cls = new byte[w * h];
            Navigation.ClassCosts(w, h, costs, 2, cls);
            for (int i = 0; i < cls.Length; ++i) Assert.AreEqual(clear[i] >= 2 ? costs[i] : 0, cls[i], "cell " + i);
            Assert.Throws<ArgumentException>(() => Navigation.ClassCosts(w, h, costs, 0, cls));
            Assert.AreEqual(2, Navigation.SizeClass(1.2));
            Assert.Throws<ArgumentException>(() => Navigation.SizeClass(double.NaN));
            Assert.IsTrue(Navigation.LineOfSight(w, h, costs, 0, 0, 3, 4));
            Assert.IsFalse(Navigation.LineOfSight(w, h, costs, 0, 2, 8, 2));
            // A goal right of the wall: the left side walks to the cell beside the wall level with it.
            var d = new float[w * h];
            var dir = new sbyte[w * h];
            Navigation.Fields(ctx, w, h, costs, new[] { 6, 2 }, true, Unreachable.Infinity, d, dir);
            Assert.IsTrue(float.IsPositiveInfinity(d[2 * w + 0]));
            Navigation.Fields(ctx, w, h, costs, new[] { 6, 2 }, true, Unreachable.NearestCell, d, dir);
            Assert.AreEqual(0f, d[2 * w + 3]);
            Assert.AreEqual(3f, d[2 * w + 0]);
            Assert.AreEqual(2f, d[2 * w + 8]);
            Assert.Throws<ArgumentException>(() => Navigation.Fields(ctx, w, h, costs, new[] { 6, 2 }, true, (Unreachable)9, d, dir));
            // Waypoints on open ground: every cell of the goal's side heads straight for the goal.
            var way = new uint[w * h];
            Navigation.Waypoints(ctx, w, h, costs, d, dir, way);
            Assert.AreEqual((uint)(2 * w + 6), way[0 * w + 8]);
            Assert.AreEqual((uint)(2 * w + 3), way[4 * w + 0]);
            Assert.AreEqual(uint.MaxValue, way[2 * w + 4]);
            var steer = new Vec2[1];
            var dist = new float[1];
            Navigation.SteerToWaypoints(w, h, d, way, new[] { new Vec2(8.5f, 0.5f) }, steer, dist);
            float len = (float)Math.Sqrt(8f);
            Assert.AreEqual(-2f / len, steer[0].X);
            Assert.AreEqual(2f / len, steer[0].Y);
            Assert.AreEqual(d[8], dist[0]);
        }

        [Test]
        public void NavFieldsFollowUpdatesAndRestore()
        {
            var costs = new byte[12 * 8];
            for (int i = 0; i < costs.Length; ++i) costs[i] = 1;
            var goals = new[] { 0, 0, 11, 7 };
            using (var f = new NavFields(ctx, 12, 8, costs, goals))
            {
                f.Update(new[] { 5, 3, 0, 5, 4, 0, 6, 2, 7 });
                costs[5 + 3 * 12] = 0; costs[5 + 4 * 12] = 0; costs[6 + 2 * 12] = 7;
                var want = new float[2 * costs.Length];
                var wantDir = new sbyte[want.Length];
                Navigation.DistanceFields(ctx, 12, 8, costs, goals, want, wantDir);
                var got = new float[costs.Length];
                for (int g = 0; g < 2; ++g)
                {
                    f.Read(g, got, null);
                    for (int c = 0; c < costs.Length; ++c) Assert.AreEqual(want[g * costs.Length + c], got[c], "goal " + g + " cell " + c);
                }
                Assert.Throws<ArgumentException>(() => f.Update(new[] { 0, 0, 0 }));  // blocking a goal
                var state = f.Save();
                using (var other = new NavFields(ctx, 1, 1, new byte[] { 1 }, new[] { 0, 0 }))
                {
                    Assert.Throws<ArgumentException>(() => other.Restore(new byte[] { 1, 2, 3 }));
                    other.Restore(state);
                    Assert.AreEqual(12, other.Width);
                    Assert.AreEqual(2, other.Goals);
                    var again = new float[costs.Length];
                    other.Read(1, again, null);
                    for (int c = 0; c < costs.Length; ++c) Assert.AreEqual(want[costs.Length + c], again[c], "cell " + c);
                }
            }
        }

        [Test]
        public void Regions3DEqualABruteForceOverlap()
        {
            var rng = new Random(12);
            var boxes = new List<float[]>();
            using (var r = new Regions(ctx, DdmVariant.CpuSort, 0, 3))
            {
                for (int i = 0; i < 240; ++i)
                {
                    var kind = i % 2 == 0 ? RegionKind.Publication : RegionKind.Subscription;
                    float x = rng.Next(0, 30), y = rng.Next(0, 30), z = rng.Next(0, 30);
                    var b = new float[] { x, y, z, x + rng.Next(0, 10), y + rng.Next(0, 10), z + rng.Next(0, 10) };
                    Assert.AreEqual((uint)i, r.Add(kind, b[0], b[1], b[2], b[3], b[4], b[5]));
                    boxes.Add(b);
                }
                var want = new List<Pair>();
                for (int p = 0; p < boxes.Count; p += 2)
                    for (int q = 1; q < boxes.Count; q += 2)
                    {
                        float[] a = boxes[p], b = boxes[q];
                        bool overlap = true;
                        for (int d = 0; d < 3; ++d) overlap &= Math.Max(a[d], b[d]) < Math.Min(a[3 + d], b[3 + d]);
                        if (overlap) want.Add(new Pair { Publication = (uint)p, Subscription = (uint)q });
                    }
                Pair[] got = null;
                int n = r.Match(ref got);
                AssertPairs(want, got, n);
                Assert.Throws<ArgumentException>(() => r.Add(RegionKind.Publication, 0, 0, 1, 1));  // a 2-D box
                Assert.Throws<ArgumentException>(() => r.Update(0, 5, 5, 5, 1, 1, 1));              // lo > hi
            }
            Assert.Throws<ArgumentException>(() => new Regions(ctx, DdmVariant.CpuSort, 0, 4));
        }

        [Test]
        public void TablesAnswerAsTheEnginesAtTheirDepth()
        {
            // Each position's move from the table search equals the engine's own fixed-depth search of it
            // where the mate is forced (one move mates), and the whole call is refused on a bad position.
            using (var tables = new Tables(ctx, Game.Chess))
            {
                var positions = new[] { "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",
                                        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1" };
                SearchResult[] results = null;
                ulong nodes = tables.Search(positions, 3, ref results);
                Assert.Greater(nodes, 0UL);
                Assert.AreEqual("a1a8", results[0].Move);
                Assert.AreEqual(31999, results[0].Score);
                Assert.AreEqual(3, results[1].Depth);
                Assert.AreEqual(4, results[1].Move.Length);
                Assert.Throws<ArgumentException>(() => tables.Search(new[] { "not a fen" }, 2, ref results));
                Assert.AreEqual("a1a8", results[0].Move);  // nothing written
            }
            using (var tables = new Tables(ctx, Game.Connect6, 8))
            {
                SearchResult[] results = null;
                tables.Search(new[] { "JJ", "JJ HHJH" }, 2, ref results);
                Assert.AreEqual(4, results[0].Move.Length);
                Assert.AreEqual(4, results[1].Move.Length);
            }
        }

        [Test]
        public void EnginesAnswerAndRefuseBadPositions()
        {
            using (var chess = new Chess(ctx, 16, 1))
            {
                chess.SetPosition("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1");
                SearchResult r = chess.Search(3);
                Assert.AreEqual("a1a8", r.Move);
                Assert.AreEqual(31999, r.Score);  // mate with the move played
                Assert.Throws<ArgumentException>(() => chess.SetPosition(null, "e2e5"));
                Assert.Throws<ArgumentException>(() => chess.SetPosition("not a fen"));
                Assert.AreEqual("a1a8", chess.Search(3).Move);  // the position unchanged
            }
            using (var c6 = new Connect6(ctx))
            {
                c6.SetPosition("JJ HHJH");
                SearchResult r = c6.Search(2);
                Assert.AreEqual(4, r.Move.Length);
                Assert.Throws<ArgumentException>(() => c6.SetPosition("JJ JJKK"));  // JJ is taken
            }
        }
        [Test]
        public void WorldMapWallsTheCrowd()
        {
            using (var w = new World(0, 0, 64, 32, 64, 32))
            {
                w.FillRect(new Vec2(2, 2), new Vec2(10, 6));
                w.DrawLine(new Vec2(0, 31), new Vec2(63, 0), 1.5f);
                w.FillPolygon(new[] { new Vec2(40, 20), new Vec2(60, 22), new Vec2(55, 30), new Vec2(42, 28) }, 5);
                byte[] costs = w.Costs();
                Assert.AreEqual(0, costs[4 * 64 + 5]);
                Assert.AreEqual(5, costs[25 * 64 + 50]);
                Entity[] walls = w.Walls(3);
                Assert.Greater(walls.Length, 20);
                Assert.AreEqual(3u, walls[0].Group);
                Assert.Throws<ArgumentException>(() => w.DrawLine(new Vec2(0, 0), new Vec2(1, 1), -1f));
                Assert.Throws<ArgumentException>(() => w.Walls(64));
                CollectionAssert.AreEqual(costs, w.Costs());
                using (var c = new Crowd(ctx, 0, 0, 64, 32, 0.25f, w.Obstacles(), CrowdRule.Strict, CrowdVariant.CpuReference))
                {
                    c.Reset(new[] { new Vec2(1.5f, 4f) });
                    c.Step(new[] { new Vec2(12f, 4f) });
                    var v = new Verdict[1];
                    c.Verdicts(v);
                    Assert.AreEqual(Verdict.Blocked, v[0]);
                }
            }
        }
    }
}
