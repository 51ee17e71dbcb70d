// Warpmind.dll: warpmind from C# (Unity, Godot .NET, Stride, mono), a thin layer over the C API
// (warpmind/warpmind.h) of the shared library libwarpmind_c.so. Every handle is a SafeHandle; a call
// that fails throws WarpmindException (ArgumentException for a bad argument, UnavailableException for a
// missing backend) with the library's message, and changes nothing. Arrays of blittable structs are
// passed pinned, without copies; per-tick calls allocate nothing in the binding except what they
// return (Step fills caller-owned arrays). The contracts (rounding, ties, limits) are the C header's.
using System;
using System.Runtime.InteropServices;

namespace Warpmind
{
    [StructLayout(LayoutKind.Sequential)]
    public struct Vec2
    {
        public float X, Y;
        public Vec2(float x, float y) { X = x; Y = y; }
        public override string ToString() { return "(" + X + ", " + Y + ")"; }
    }

    public enum Backend { Auto = 0, Cpu = 1, Cuda = 2 }
    public enum CrowdRule { Strict = 0, LowestIdWins = 1 }
    public enum CrowdVariant { Auto = 0, CpuReference = 1, GpuSort = 2, GpuTiled = 3, GpuStaticGrid = 4 }
    public enum Verdict : byte { Moved = 0, Stayed = 1, OutOfWorld = 2, Blocked = 3, Collision = 4 }
    public enum CombatVariant { Auto = 0, Cpu = 1, Gpu = 2 }

    public class WarpmindException : Exception
    {
        public WarpmindException(string message) : base(message) {}
    }
    public class UnavailableException : WarpmindException
    {
        public UnavailableException(string message) : base(message) {}
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct ChargeKind
    {
        public int Segments;
        [MarshalAs(UnmanagedType.ByValArray, SizeConst = 4)] public float[] End;
        [MarshalAs(UnmanagedType.ByValArray, SizeConst = 4)] public float[] Slope;
        [MarshalAs(UnmanagedType.ByValArray, SizeConst = 4)] public float[] Intercept;
        // value(d) = intercept[k] + slope[k] * d on the first segment whose end >= d; 0 beyond the last.
        public static ChargeKind Linear(params float[] endSlopeIntercept)
        {
            if (endSlopeIntercept.Length == 0 || endSlopeIntercept.Length % 3 != 0 || endSlopeIntercept.Length > 12)
                throw new ArgumentException("ChargeKind.Linear: 1..4 triples (end, slope, intercept)");
            var k = new ChargeKind { Segments = endSlopeIntercept.Length / 3, End = new float[4], Slope = new float[4], Intercept = new float[4] };
            for (int s = 0; s < k.Segments; ++s)
            {
                k.End[s] = endSlopeIntercept[3 * s];
                k.Slope[s] = endSlopeIntercept[3 * s + 1];
                k.Intercept[s] = endSlopeIntercept[3 * s + 2];
            }
            return k;
        }
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct LayerRule { public uint Layer, Group, Kind; public LayerRule(uint layer, uint group, uint kind) { Layer = layer; Group = group; Kind = kind; } }

    [StructLayout(LayoutKind.Sequential)]
    public struct Entity { public float X, Y; public uint Group; public Entity(float x, float y, uint group) { X = x; Y = y; Group = group; } }

    [StructLayout(LayoutKind.Sequential)]
    public struct Move { public int CellX, CellY; public Vec2 Target; public float Value; }

    [StructLayout(LayoutKind.Sequential)]
    public struct CrowdStats { public UIntPtr Moved, Stayed, OutOfWorld, Blocked, Collisions; }

    public struct SearchResult { public string Move; public int Score, Depth; public ulong Nodes; }

    internal static class Native
    {
        const string Lib = "warpmind_c";

        [StructLayout(LayoutKind.Sequential)]
        internal struct FieldConfig
        {
            public float X0, Y0, Width, Height;
            public int CellsX, CellsY;
            public IntPtr Kinds; public UIntPtr KindCount;
            public IntPtr Rules; public UIntPtr RuleCount;
            public uint LayerCount;
        }
        [StructLayout(LayoutKind.Sequential)]
        internal struct CrowdConfig
        {
            public float X0, Y0, Width, Height, Radius;
            public int ObstaclesWidth, ObstaclesHeight;
            public IntPtr Blocked;
            public int Rule, Variant;
        }
        [StructLayout(LayoutKind.Sequential)]
        internal struct CombatConfig
        {
            public float X0, Y0, Width, Height, Range, Damage;
            public int CooldownTicks, Variant;
        }
        [StructLayout(LayoutKind.Sequential)]
        internal struct Limits { public int Depth; public long TimeMs; public ulong Nodes; }
        [StructLayout(LayoutKind.Sequential)]
        internal unsafe struct Result { public fixed byte Move[8]; public int Score, Depth; public ulong Nodes; }

        [DllImport(Lib)] internal static extern IntPtr wm_version();
        [DllImport(Lib)] internal static extern IntPtr wm_last_error();
        [DllImport(Lib)] internal static extern int wm_context_create(int backend, uint threads, out IntPtr ctx);
        [DllImport(Lib)] internal static extern void wm_context_destroy(IntPtr ctx);
        [DllImport(Lib)] internal static extern int wm_context_uses_gpu(ContextHandle ctx);
        [DllImport(Lib)] internal static extern int wm_field_create(ContextHandle ctx, ref FieldConfig config, out IntPtr field);
        [DllImport(Lib)] internal static extern void wm_field_destroy(IntPtr field);
        [DllImport(Lib)] internal static extern int wm_field_build(FieldHandle f, Entity[] entities, UIntPtr count);
        [DllImport(Lib)] internal static extern int wm_field_sample(FieldHandle f, uint layer, Vec2[] points, UIntPtr count, float[] values);
        [DllImport(Lib)] internal static extern int wm_field_best_move(FieldHandle f, uint layer, Vec2[] points, UIntPtr count, int window, Move[] moves);
        [DllImport(Lib)] internal static extern int wm_field_gradient(FieldHandle f, uint layer, Vec2[] points, UIntPtr count, Vec2[] gradients);
        [DllImport(Lib)] internal static extern int wm_crowd_create_with(ContextHandle ctx, ref CrowdConfig config, out IntPtr crowd);
        [DllImport(Lib)] internal static extern void wm_crowd_destroy(IntPtr crowd);
        [DllImport(Lib)] internal static extern int wm_crowd_reset(CrowdHandle c, Vec2[] positions, UIntPtr count);
        [DllImport(Lib)] internal static extern int wm_crowd_step(CrowdHandle c, Vec2[] proposals, UIntPtr count, out CrowdStats stats);
        [DllImport(Lib)] internal static extern int wm_crowd_positions(CrowdHandle c, [Out] Vec2[] positions, UIntPtr count);
        [DllImport(Lib)] internal static extern int wm_crowd_verdicts(CrowdHandle c, [Out] Verdict[] verdicts, UIntPtr count);
        [DllImport(Lib)] internal static extern int wm_crowd_retain(CrowdHandle c, byte[] keep, UIntPtr count);
        [DllImport(Lib)] internal static extern UIntPtr wm_crowd_size(CrowdHandle c);
        [DllImport(Lib)] internal static extern int wm_combat_create(ContextHandle ctx, ref CombatConfig config, out IntPtr combat);
        [DllImport(Lib)] internal static extern void wm_combat_destroy(IntPtr combat);
        [DllImport(Lib)] internal static extern int wm_combat_reset(CombatHandle c, byte[] teams, float[] hp, UIntPtr count);
        [DllImport(Lib)] internal static extern int wm_combat_fire(CombatHandle c, Vec2[] positions, UIntPtr count, [Out] byte[] keep);
        [DllImport(Lib)] internal static extern UIntPtr wm_combat_size(CombatHandle c);
        [DllImport(Lib)] internal static extern int wm_combat_state(CombatHandle c, [Out] byte[] teams, [Out] float[] hp, [Out] int[] cooldown, UIntPtr count);
        [DllImport(Lib)] internal static extern int wm_chess_create(ContextHandle ctx, int hashMb, int threads, out IntPtr chess);
        [DllImport(Lib)] internal static extern void wm_chess_destroy(IntPtr chess);
        [DllImport(Lib)] internal static extern int wm_chess_set_position(ChessHandle c, string fen, string moves);
        [DllImport(Lib)] internal static extern int wm_chess_search(ChessHandle c, ref Limits limits, out Result result);
        [DllImport(Lib)] internal static extern int wm_connect6_create(ContextHandle ctx, int threads, out IntPtr c6);
        [DllImport(Lib)] internal static extern void wm_connect6_destroy(IntPtr c6);
        [DllImport(Lib)] internal static extern int wm_connect6_set_position(Connect6Handle c, string turns);
        [DllImport(Lib)] internal static extern int wm_connect6_search(Connect6Handle c, ref Limits limits, out Result result);

        internal static void Check(int status)
        {
            if (status == 0) return;
            string message = Marshal.PtrToStringAnsi(wm_last_error()) ?? "";
            if (status == 1) throw new ArgumentException(message);
            if (status == 2) throw new UnavailableException(message);
            if (status == 3) throw new OutOfMemoryException(message);
            throw new WarpmindException(message);
        }
        internal static UIntPtr Size(int n) { return new UIntPtr((uint)n); }
        internal static unsafe SearchResult ToResult(ref Result r)
        {
            fixed (byte* m = r.Move) return new SearchResult { Move = Marshal.PtrToStringAnsi((IntPtr)m), Score = r.Score, Depth = r.Depth, Nodes = r.Nodes };
        }
    }

    // One SafeHandle type per kind of handle, each releasing with its own destroy call.
    public abstract class WarpmindHandle : SafeHandle
    {
        protected WarpmindHandle() : base(IntPtr.Zero, true) {}
        public override bool IsInvalid { get { return handle == IntPtr.Zero; } }
        internal void Set(IntPtr h) { SetHandle(h); }
    }
    public sealed class ContextHandle : WarpmindHandle { protected override bool ReleaseHandle() { Native.wm_context_destroy(handle); return true; } }
    public sealed class FieldHandle : WarpmindHandle { protected override bool ReleaseHandle() { Native.wm_field_destroy(handle); return true; } }
    public sealed class CrowdHandle : WarpmindHandle { protected override bool ReleaseHandle() { Native.wm_crowd_destroy(handle); return true; } }
    public sealed class CombatHandle : WarpmindHandle { protected override bool ReleaseHandle() { Native.wm_combat_destroy(handle); return true; } }
    public sealed class ChessHandle : WarpmindHandle { protected override bool ReleaseHandle() { Native.wm_chess_destroy(handle); return true; } }
    public sealed class Connect6Handle : WarpmindHandle { protected override bool ReleaseHandle() { Native.wm_connect6_destroy(handle); return true; } }

    // The backend every module runs on; must outlive the objects created with it (they hold it).
    public sealed class Context : IDisposable
    {
        internal readonly ContextHandle Handle = new ContextHandle();
        public Context(Backend backend = Backend.Auto, uint threads = 0)
        {
            IntPtr h;
            Native.Check(Native.wm_context_create((int)backend, threads, out h));
            Handle.Set(h);
        }
        public bool UsesGpu { get { return Native.wm_context_uses_gpu(Handle) != 0; } }
        public static string Version { get { return Marshal.PtrToStringAnsi(Native.wm_version()); } }
        public void Dispose() { Handle.Dispose(); }
    }

    public sealed class Field : IDisposable
    {
        readonly Context context;
        readonly FieldHandle handle = new FieldHandle();
        public Field(Context ctx, float x0, float y0, float width, float height, int cellsX, int cellsY,
                     ChargeKind[] kinds, LayerRule[] rules, uint layerCount)
        {
            context = ctx;
            GCHandle r = GCHandle.Alloc(rules, GCHandleType.Pinned);
            try
            {
                // ChargeKind holds managed arrays: marshal each to the C layout in unmanaged memory.
                int size = Marshal.SizeOf(typeof(ChargeKind));
                IntPtr native = Marshal.AllocHGlobal(size * Math.Max(1, kinds.Length));
                try
                {
                    for (int i = 0; i < kinds.Length; ++i) Marshal.StructureToPtr(kinds[i], native + i * size, false);
                    var c = new Native.FieldConfig { X0 = x0, Y0 = y0, Width = width, Height = height, CellsX = cellsX, CellsY = cellsY,
                                                     Kinds = native, KindCount = Native.Size(kinds.Length),
                                                     Rules = r.AddrOfPinnedObject(), RuleCount = Native.Size(rules.Length), LayerCount = layerCount };
                    IntPtr h;
                    Native.Check(Native.wm_field_create(ctx.Handle, ref c, out h));
                    handle.Set(h);
                }
                finally { Marshal.FreeHGlobal(native); }
            }
            finally { r.Free(); }
        }
        public void Build(Entity[] entities) { Native.Check(Native.wm_field_build(handle, entities, Native.Size(entities.Length))); }
        public void Sample(uint layer, Vec2[] points, float[] values)
        {
            if (values.Length != points.Length) throw new ArgumentException("Sample: one value per point");
            Native.Check(Native.wm_field_sample(handle, layer, points, Native.Size(points.Length), values));
        }
        public void BestMove(uint layer, Vec2[] points, int window, Move[] moves)
        {
            if (moves.Length != points.Length) throw new ArgumentException("BestMove: one move per point");
            Native.Check(Native.wm_field_best_move(handle, layer, points, Native.Size(points.Length), window, moves));
        }
        public void Gradient(uint layer, Vec2[] points, Vec2[] gradients)
        {
            if (gradients.Length != points.Length) throw new ArgumentException("Gradient: one gradient per point");
            Native.Check(Native.wm_field_gradient(handle, layer, points, Native.Size(points.Length), gradients));
        }
        public void Dispose() { handle.Dispose(); GC.KeepAlive(context); }
    }

    public sealed class Crowd : IDisposable
    {
        readonly Context context;
        readonly CrowdHandle handle = new CrowdHandle();
        // obstacles: null, or rows x columns flags (non-zero blocks) as blocked[row, column].
        public Crowd(Context ctx, float x0, float y0, float width, float height, float radius, byte[,] obstacles = null,
                     CrowdRule rule = CrowdRule.Strict, CrowdVariant variant = CrowdVariant.Auto)
        {
            context = ctx;
            GCHandle pin = GCHandle.Alloc(obstacles ?? new byte[0, 0], GCHandleType.Pinned);
            try
            {
                var c = new Native.CrowdConfig { X0 = x0, Y0 = y0, Width = width, Height = height, Radius = radius,
                                                 ObstaclesWidth = obstacles == null ? 0 : obstacles.GetLength(1),
                                                 ObstaclesHeight = obstacles == null ? 0 : obstacles.GetLength(0),
                                                 Blocked = obstacles == null ? IntPtr.Zero : pin.AddrOfPinnedObject(),
                                                 Rule = (int)rule, Variant = (int)variant };
                IntPtr h;
                Native.Check(Native.wm_crowd_create_with(ctx.Handle, ref c, out h));
                handle.Set(h);
            }
            finally { pin.Free(); }
        }
        public int Count { get { return (int)Native.wm_crowd_size(handle); } }
        public void Reset(Vec2[] positions) { Native.Check(Native.wm_crowd_reset(handle, positions, Native.Size(positions.Length))); }
        public CrowdStats Step(Vec2[] proposals)
        {
            CrowdStats s;
            Native.Check(Native.wm_crowd_step(handle, proposals, Native.Size(proposals.Length), out s));
            return s;
        }
        public void Positions(Vec2[] into) { Native.Check(Native.wm_crowd_positions(handle, into, Native.Size(into.Length))); }
        public void Verdicts(Verdict[] into) { Native.Check(Native.wm_crowd_verdicts(handle, into, Native.Size(into.Length))); }
        public void Retain(byte[] keep) { Native.Check(Native.wm_crowd_retain(handle, keep, Native.Size(keep.Length))); }
        public void Dispose() { handle.Dispose(); GC.KeepAlive(context); }
    }

    public sealed class Combat : IDisposable
    {
        readonly Context context;
        readonly CombatHandle handle = new CombatHandle();
        public Combat(Context ctx, float x0, float y0, float width, float height, float range, float damage,
                      int cooldownTicks, CombatVariant variant = CombatVariant.Auto)
        {
            context = ctx;
            var c = new Native.CombatConfig { X0 = x0, Y0 = y0, Width = width, Height = height, Range = range, Damage = damage,
                                              CooldownTicks = cooldownTicks, Variant = (int)variant };
            IntPtr h;
            Native.Check(Native.wm_combat_create(ctx.Handle, ref c, out h));
            handle.Set(h);
        }
        public int Count { get { return (int)Native.wm_combat_size(handle); } }
        public void Reset(byte[] teams, float[] hp)
        {
            if (teams.Length != hp.Length) throw new ArgumentException("Reset: one HP per team entry");
            Native.Check(Native.wm_combat_reset(handle, teams, hp, Native.Size(teams.Length)));
        }
        // keep: as many flags as units before the volley; pass them to Crowd.Retain.
        public void Fire(Vec2[] positions, byte[] keep)
        {
            if (keep.Length != positions.Length) throw new ArgumentException("Fire: one keep flag per unit");
            Native.Check(Native.wm_combat_fire(handle, positions, Native.Size(positions.Length), keep));
        }
        public void State(byte[] teams, float[] hp, int[] cooldown)
        {
            Native.Check(Native.wm_combat_state(handle, teams, hp, cooldown, Native.Size(Count)));
        }
        public void Dispose() { handle.Dispose(); GC.KeepAlive(context); }
    }

    public sealed class Chess : IDisposable
    {
        readonly Context context;
        readonly ChessHandle handle = new ChessHandle();
        public Chess(Context ctx, int hashMb = 64, int threads = 1)
        {
            context = ctx;
            IntPtr h;
            Native.Check(Native.wm_chess_create(ctx.Handle, hashMb, threads, out h));
            handle.Set(h);
        }
        // fen: null for the start position; moves: UCI, separated by spaces.
        public void SetPosition(string fen, string moves = "") { Native.Check(Native.wm_chess_set_position(handle, fen, moves)); }
        public SearchResult Search(int depth = 0, long timeMs = 0, ulong nodes = 0)
        {
            var l = new Native.Limits { Depth = depth, TimeMs = timeMs, Nodes = nodes };
            Native.Result r;
            Native.Check(Native.wm_chess_search(handle, ref l, out r));
            return Native.ToResult(ref r);
        }
        public void Dispose() { handle.Dispose(); GC.KeepAlive(context); }
    }

    public sealed class Connect6 : IDisposable
    {
        readonly Context context;
        readonly Connect6Handle handle = new Connect6Handle();
        public Connect6(Context ctx, int threads = 1)
        {
            context = ctx;
            IntPtr h;
            Native.Check(Native.wm_connect6_create(ctx.Handle, threads, out h));
            handle.Set(h);
        }
        public void SetPosition(string turns) { Native.Check(Native.wm_connect6_set_position(handle, turns)); }
        public SearchResult Search(int depth = 0, long timeMs = 0)
        {
            var l = new Native.Limits { Depth = depth, TimeMs = timeMs };
            Native.Result r;
            Native.Check(Native.wm_connect6_search(handle, ref l, out r));
            return Native.ToResult(ref r);
        }
        public void Dispose() { handle.Dispose(); GC.KeepAlive(context); }
    }
}
