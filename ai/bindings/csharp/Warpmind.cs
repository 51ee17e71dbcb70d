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
    public enum Verdict : byte { Moved = 0, Stayed = 1, OutOfWorld = 2, Blocked = 3, Collision = 4, TooFar = 5 }
    public enum CrowdMovement { AcceptReject = 0, Avoid = 1 }
    public enum CombatVariant { Auto = 0, Cpu = 1, Gpu = 2 }
    // What a field gives a cell that cannot reach its goal (warpmind/nav/nav.h): +infinity, or the field of
    // its region's cell nearest the goal in a straight line.
    public enum Unreachable { Infinity = 0, NearestCell = 1 }

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
    public struct CrowdStats { public UIntPtr Moved, Stayed, OutOfWorld, Blocked, Collisions, TooFar; }

    public struct SearchResult { public string Move; public int Score, Depth; public ulong Nodes; }

    public enum AoiShape { Square = 0, Circle = 1 }
    public enum AoiVariant
    {
        Auto = 0, CpuGrid = 1, CpuFast = 2, GpuSorted = 3, GpuFast = 4,
        [System.Obsolete("use GpuSorted")] GpuSeed = 3
    }
    public enum CommandType : uint { Move = 0, Attack = 1, Heal = 2 }
    public enum RegionKind { Publication = 0, Subscription = 1 }
    public enum DdmVariant { Auto = 0, CpuBrute = 1, CpuSort = 2, GpuRegion = 3, GpuGrid = 4 }

    [StructLayout(LayoutKind.Sequential)]
    public struct Player { public float X, Y; public int Hp; public Player(float x, float y, int hp) { X = x; Y = y; Hp = hp; } }

    [StructLayout(LayoutKind.Sequential)]
    public struct Command
    {
        public uint Player; public CommandType Type; public float Dx, Dy; public uint Target; public int Damage;
        public static Command Move(uint player, float dx, float dy) { return new Command { Player = player, Type = CommandType.Move, Dx = dx, Dy = dy }; }
        public static Command Attack(uint player, uint target, int damage) { return new Command { Player = player, Type = CommandType.Attack, Target = target, Damage = damage }; }
        // Raises the player's own HP by amount (the Damage field carries it).
        public static Command Heal(uint player, int amount) { return new Command { Player = player, Type = CommandType.Heal, Damage = amount }; }
    }

    // Field: 0 x, 1 y (Value is the float's bits: AsFloat), 2 hp (AsInt).
    [StructLayout(LayoutKind.Sequential)]
    public struct Notification
    {
        public uint Receiver, Subject, Field, Value;
        public float AsFloat { get { return BitConverter.ToSingle(BitConverter.GetBytes(Value), 0); } }
        public int AsInt { get { return unchecked((int)Value); } }
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct VisibilityEvent { public uint Receiver, Other; }

    [StructLayout(LayoutKind.Sequential)]
    public struct Pair { public uint Publication, Subscription; }

    [StructLayout(LayoutKind.Sequential)]
    public struct AoiTickStats
    {
        public UIntPtr Accepted;
        public UIntPtr Rejected0, Rejected1, Rejected2, Rejected3, Rejected4, Rejected5, Rejected6;
        public UIntPtr Updates, Notifications, Entered, Left;
        public double MsLogic, MsQuery, MsVisibility;
    }

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
            public int Rule, Variant, Movement;
            public float MaxStep, MinRadius;
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

        [StructLayout(LayoutKind.Sequential)]
        internal struct AoiConfig
        {
            public float X0, Y0, Width, Height, Aoi;
            public int Shape;
            public float MaxMove, AttackRange;
            public int TrackVisibility, Variant;
            public ulong ChunkNotifications;
        }
        [DllImport(Lib)] internal static extern int wm_aoi_create(ContextHandle ctx, ref AoiConfig config, out IntPtr aoi);
        [DllImport(Lib)] internal static extern void wm_aoi_destroy(IntPtr aoi);
        [DllImport(Lib)] internal static extern int wm_aoi_reset(AoiHandle a, Player[] players, UIntPtr count);
        [DllImport(Lib)] internal static extern int wm_aoi_tick(AoiHandle a, Command[] commands, UIntPtr count, out AoiTickStats stats);
        [DllImport(Lib)] internal static extern int wm_aoi_notifications(AoiHandle a, out IntPtr notes, out UIntPtr count);
        [StructLayout(LayoutKind.Sequential)]
        internal struct Chunk
        {
            public uint FirstReceiver, EndReceiver;
            public ulong FirstNotification;
            public IntPtr Notifications;
            public UIntPtr Count;
        }
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        internal delegate void Sink(ref Chunk chunk, IntPtr user);
        [DllImport(Lib)] internal static extern int wm_aoi_tick_chunked(AoiHandle a, Command[] commands, UIntPtr count, Sink sink,
                                                                        IntPtr user, out AoiTickStats stats);
        [DllImport(Lib)] internal static extern int wm_aoi_visibility(AoiHandle a, out IntPtr entered, out UIntPtr enteredCount, out IntPtr left, out UIntPtr leftCount);
        [DllImport(Lib)] internal static extern int wm_aoi_players(AoiHandle a, [Out] Player[] players, UIntPtr count);
        [DllImport(Lib)] internal static extern UIntPtr wm_aoi_size(AoiHandle a);
        [DllImport(Lib)] internal static extern int wm_regions_create(ContextHandle ctx, int dimensions, int variant, float gridCell, out IntPtr r);
        [DllImport(Lib)] internal static extern void wm_regions_destroy(IntPtr r);
        [DllImport(Lib)] internal static extern int wm_regions_add(RegionsHandle r, int kind, float[] lo, float[] hi, out uint id);
        [DllImport(Lib)] internal static extern int wm_regions_update(RegionsHandle r, uint id, float[] lo, float[] hi);
        [DllImport(Lib)] internal static extern int wm_regions_remove(RegionsHandle r, uint id);
        [DllImport(Lib)] internal static extern int wm_regions_match(RegionsHandle r, out IntPtr pairs, out UIntPtr count);
        [DllImport(Lib)] internal static extern int wm_nav_fields(ContextHandle ctx, int width, int height, byte[] costs, int[] goals, UIntPtr goalCount, [Out] float[] distances, [Out] sbyte[] directions);
        [DllImport(Lib)] internal static extern int wm_nav_goal_set_field(ContextHandle ctx, int width, int height, byte[] costs, int[] goals, UIntPtr goalCount, [Out] float[] distances, [Out] sbyte[] directions);
        [DllImport(Lib)] internal static extern int wm_navfields_create(ContextHandle ctx, int width, int height, byte[] costs, int[] goals, UIntPtr goalCount, out IntPtr fields);
        [DllImport(Lib)] internal static extern void wm_navfields_destroy(IntPtr fields);
        [DllImport(Lib)] internal static extern int wm_navfields_update(NavFieldsHandle f, int[] changes, UIntPtr count);
        [DllImport(Lib)] internal static extern int wm_navfields_size(NavFieldsHandle f, out int width, out int height, out UIntPtr goals);
        [DllImport(Lib)] internal static extern int wm_navfields_read(NavFieldsHandle f, UIntPtr goal, [Out] float[] distances, [Out] sbyte[] directions, UIntPtr cells);
        [DllImport(Lib)] internal static extern int wm_navfields_save(NavFieldsHandle f, out IntPtr bytes, out UIntPtr size);
        [DllImport(Lib)] internal static extern int wm_navfields_restore(NavFieldsHandle f, byte[] bytes, UIntPtr size);
        [DllImport(Lib)] internal static extern int wm_nav_steer(int width, int height, float[] distances, sbyte[] directions, Vec2[] positions, UIntPtr count, [Out] Vec2[] steer, [Out] float[] dist);
        [DllImport(Lib)] internal static extern int wm_nav_fields_with(ContextHandle ctx, int width, int height, byte[] costs, int[] goals, UIntPtr goalCount, int goalSet, int unreachable, [Out] float[] distances, [Out] sbyte[] directions);
        [DllImport(Lib)] internal static extern int wm_nav_clearance(int width, int height, byte[] costs, [Out] ushort[] clearance);
        [DllImport(Lib)] internal static extern int wm_nav_class_costs(int width, int height, byte[] costs, int sizeClass, [Out] byte[] classCosts);
        [DllImport(Lib)] internal static extern int wm_nav_size_class(double radiusCells, out int sizeClass);
        [DllImport(Lib)] internal static extern int wm_nav_line_of_sight(int width, int height, byte[] costs, int ax, int ay, int bx, int by, out int visible);
        [DllImport(Lib)] internal static extern int wm_nav_waypoints(ContextHandle ctx, int width, int height, byte[] costs, float[] distances, sbyte[] directions, [Out] uint[] waypoints);
        [DllImport(Lib)] internal static extern int wm_nav_steer_waypoints(int width, int height, float[] distances, uint[] waypoints, Vec2[] positions, UIntPtr count, [Out] Vec2[] steer, [Out] float[] dist);

        // Copies count records from memory the library owns into `into` (grown when too small): one block
        // copy, no allocation once the array is large enough.
        internal static unsafe int CopyOut(IntPtr from, UIntPtr count, ref Notification[] into)
        {
            int n = (int)count;
            if (into == null || into.Length < n) into = new Notification[n];
            fixed (Notification* d = into) Buffer.MemoryCopy((void*)from, d, (long)into.Length * sizeof(Notification), (long)n * sizeof(Notification));
            return n;
        }
        internal static unsafe int CopyOut(IntPtr from, UIntPtr count, ref VisibilityEvent[] into)
        {
            int n = (int)count;
            if (into == null || into.Length < n) into = new VisibilityEvent[n];
            fixed (VisibilityEvent* d = into) Buffer.MemoryCopy((void*)from, d, (long)into.Length * sizeof(VisibilityEvent), (long)n * sizeof(VisibilityEvent));
            return n;
        }
        internal static unsafe int CopyOut(IntPtr from, UIntPtr count, ref Pair[] into)
        {
            int n = (int)count;
            if (into == null || into.Length < n) into = new Pair[n];
            fixed (Pair* d = into) Buffer.MemoryCopy((void*)from, d, (long)into.Length * sizeof(Pair), (long)n * sizeof(Pair));
            return n;
        }

        [DllImport(Lib)] internal static extern IntPtr wm_version();
        [DllImport(Lib)] internal static extern IntPtr wm_last_error();
        [DllImport(Lib)] internal static extern int wm_context_create(int backend, uint threads, out IntPtr ctx);
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        internal delegate void LogFn(IntPtr user, int level, IntPtr message);
        [StructLayout(LayoutKind.Sequential)]
        internal struct ContextOptions { public int Backend; public uint CpuThreads; public int CudaDevice; public IntPtr Log; public IntPtr LogUser; }
        [DllImport(Lib)] internal static extern int wm_context_create_with(ref ContextOptions options, out IntPtr ctx);
        [DllImport(Lib)] internal static extern void wm_context_destroy(IntPtr ctx);
        [DllImport(Lib)] internal static extern int wm_context_uses_gpu(ContextHandle ctx);
        [DllImport(Lib)] internal static extern int wm_field_create(ContextHandle ctx, ref FieldConfig config, out IntPtr field);
        [DllImport(Lib)] internal static extern void wm_field_destroy(IntPtr field);
        [DllImport(Lib)] internal static extern int wm_field_build(FieldHandle f, Entity[] entities, UIntPtr count);
        [DllImport(Lib)] internal static extern int wm_field_sample(FieldHandle f, uint layer, Vec2[] points, UIntPtr count, float[] values);
        [DllImport(Lib)] internal static extern int wm_field_best_move(FieldHandle f, uint layer, Vec2[] points, UIntPtr count, int window, Move[] moves);
        [DllImport(Lib)] internal static extern int wm_field_gradient(FieldHandle f, uint layer, Vec2[] points, UIntPtr count, Vec2[] gradients);
        [DllImport(Lib)] internal static extern int wm_field_steer(FieldHandle f, Vec2[] points, byte[] layerOf, UIntPtr count, int window, float step, Vec2[] output, float[] heading);
        [DllImport(Lib)] internal static extern int wm_crowd_create_with(ContextHandle ctx, ref CrowdConfig config, out IntPtr crowd);
        [DllImport(Lib)] internal static extern void wm_crowd_destroy(IntPtr crowd);
        [DllImport(Lib)] internal static extern int wm_crowd_reset(CrowdHandle c, Vec2[] positions, UIntPtr count);
        [DllImport(Lib)] internal static extern int wm_crowd_step(CrowdHandle c, Vec2[] proposals, UIntPtr count, out CrowdStats stats);
        [DllImport(Lib)] internal static extern int wm_crowd_positions(CrowdHandle c, [Out] Vec2[] positions, UIntPtr count);
        [DllImport(Lib)] internal static extern int wm_crowd_reset_steps(CrowdHandle c, Vec2[] positions, float[] maxSteps, UIntPtr count);
        [DllImport(Lib)] internal static extern int wm_crowd_verdicts(CrowdHandle c, [Out] Verdict[] verdicts, UIntPtr count);
        [DllImport(Lib)] internal static extern int wm_crowd_retain(CrowdHandle c, byte[] keep, UIntPtr count);
        [DllImport(Lib)] internal static extern int wm_crowd_spawn(CrowdHandle c, Vec2[] positions, float[] maxSteps, UIntPtr count, [Out] uint[] ids);
        [DllImport(Lib)] internal static extern int wm_crowd_reset_agents(CrowdHandle c, Vec2[] positions, float[] maxSteps, float[] radii, UIntPtr count);
        [DllImport(Lib)] internal static extern int wm_crowd_spawn_agents(CrowdHandle c, Vec2[] positions, float[] maxSteps, float[] radii, UIntPtr count, [Out] uint[] ids);
        [DllImport(Lib)] internal static extern int wm_crowd_radii(CrowdHandle c, [Out] float[] radii, UIntPtr count);
        [DllImport(Lib)] internal static extern int wm_crowd_despawn(CrowdHandle c, uint[] ids, UIntPtr count);
        [DllImport(Lib)] internal static extern int wm_crowd_ids(CrowdHandle c, [Out] uint[] ids, UIntPtr count);
        [DllImport(Lib)] internal static extern int wm_crowd_save(CrowdHandle c, out IntPtr bytes, out UIntPtr size);
        [DllImport(Lib)] internal static extern int wm_crowd_restore(CrowdHandle c, byte[] bytes, UIntPtr size);
        [DllImport(Lib)] internal static extern int wm_aoi_save(AoiHandle a, out IntPtr bytes, out UIntPtr size);
        [DllImport(Lib)] internal static extern int wm_aoi_restore(AoiHandle a, byte[] bytes, UIntPtr size);
        [DllImport(Lib)] internal static extern UIntPtr wm_crowd_size(CrowdHandle c);
        [DllImport(Lib)] internal static extern int wm_world_create(float x0, float y0, float w, float h, int width, int height, out IntPtr world);
        [DllImport(Lib)] internal static extern void wm_world_destroy(IntPtr world);
        [DllImport(Lib)] internal static extern int wm_world_fill_rect(WorldHandle w, Vec2 lo, Vec2 hi, byte cost);
        [DllImport(Lib)] internal static extern int wm_world_draw_line(WorldHandle w, Vec2 a, Vec2 b, float thickness, byte cost);
        [DllImport(Lib)] internal static extern int wm_world_fill_polygon(WorldHandle w, Vec2[] points, UIntPtr count, byte cost);
        [DllImport(Lib)] internal static extern int wm_world_costs(WorldHandle w, [Out] byte[] costs, UIntPtr count);
        [DllImport(Lib)] internal static extern int wm_world_walls(WorldHandle w, uint group, [Out] Entity[] walls, UIntPtr capacity, out UIntPtr count);
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
        [DllImport(Lib)] internal static extern int wm_tables_create(ContextHandle ctx, int game, int width, out IntPtr t);
        [DllImport(Lib)] internal static extern void wm_tables_destroy(IntPtr t);
        [DllImport(Lib)] internal static extern int wm_tables_search(TablesHandle t, string[] positions, UIntPtr count, int depth,
                                                                     [Out] Result[] results, out ulong nodes);

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
        // A copy of n bytes the library owns (a saved state): the caller's to keep.
        internal static byte[] Copy(IntPtr p, UIntPtr n)
        {
            var bytes = new byte[(int)n];
            Marshal.Copy(p, bytes, 0, bytes.Length);
            return bytes;
        }
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
    public sealed class WorldHandle : WarpmindHandle { protected override bool ReleaseHandle() { Native.wm_world_destroy(handle); return true; } }
    public sealed class CombatHandle : WarpmindHandle { protected override bool ReleaseHandle() { Native.wm_combat_destroy(handle); return true; } }
    public sealed class AoiHandle : WarpmindHandle { protected override bool ReleaseHandle() { Native.wm_aoi_destroy(handle); return true; } }
    public sealed class RegionsHandle : WarpmindHandle { protected override bool ReleaseHandle() { Native.wm_regions_destroy(handle); return true; } }
    public sealed class ChessHandle : WarpmindHandle { protected override bool ReleaseHandle() { Native.wm_chess_destroy(handle); return true; } }
    public sealed class Connect6Handle : WarpmindHandle { protected override bool ReleaseHandle() { Native.wm_connect6_destroy(handle); return true; } }
    public sealed class NavFieldsHandle : WarpmindHandle { protected override bool ReleaseHandle() { Native.wm_navfields_destroy(handle); return true; } }
    public sealed class TablesHandle : WarpmindHandle { protected override bool ReleaseHandle() { Native.wm_tables_destroy(handle); return true; } }

    public enum LogLevel { Info = 0, Warning = 1 }

    // The backend every module runs on; must outlive the objects created with it (they hold it).
    // threads: 0 for one per hardware thread, at most 4096. log: where the library's messages go (the
    // backend choice, the CPU fallback's reason), called during the constructor and on the thread of any
    // later call that logs; null drops them. An exception it throws is dropped.
    public sealed class Context : IDisposable
    {
        internal readonly ContextHandle Handle = new ContextHandle();
        readonly Native.LogFn logFn;  // kept alive as long as the context calls it
        public Context(Backend backend = Backend.Auto, uint threads = 0, Action<LogLevel, string> log = null)
        {
            IntPtr h;
            if (log == null)
            {
                Native.Check(Native.wm_context_create((int)backend, threads, out h));
            }
            else
            {
                logFn = (user, level, message) =>
                {
                    try { log((LogLevel)level, Marshal.PtrToStringAnsi(message)); }
                    catch (Exception) { }  // an exception must not unwind through the native library
                };
                var o = new Native.ContextOptions { Backend = (int)backend, CpuThreads = threads, CudaDevice = 0,
                                                    Log = Marshal.GetFunctionPointerForDelegate(logFn) };
                Native.Check(Native.wm_context_create_with(ref o, out h));
            }
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
        // Each point a step towards the best cell of its window on layer layerOf[i] (wm_field_steer); heading
        // may be null, else it is updated where the point moves.
        public void Steer(Vec2[] points, byte[] layerOf, int window, float step, Vec2[] output, float[] heading = null)
        {
            if (layerOf.Length != points.Length || output.Length != points.Length || (heading != null && heading.Length != points.Length))
                throw new ArgumentException("Steer: one layer, output and heading per point");
            Native.Check(Native.wm_field_steer(handle, points, layerOf, Native.Size(points.Length), window, step, output, heading));
        }
        public void Dispose() { handle.Dispose(); GC.KeepAlive(context); }
    }

    public sealed class Crowd : IDisposable
    {
        readonly Context context;
        readonly CrowdHandle handle = new CrowdHandle();
        // obstacles: null, or rows x columns flags (non-zero blocks) as blocked[row, column].
        public Crowd(Context ctx, float x0, float y0, float width, float height, float radius, byte[,] obstacles = null,
                     CrowdRule rule = CrowdRule.Strict, CrowdVariant variant = CrowdVariant.Auto,
                     CrowdMovement movement = CrowdMovement.AcceptReject, float maxStep = 0f, float minRadius = 0f)
        {
            context = ctx;
            GCHandle pin = GCHandle.Alloc(obstacles ?? new byte[0, 0], GCHandleType.Pinned);
            try
            {
                var c = new Native.CrowdConfig { X0 = x0, Y0 = y0, Width = width, Height = height, Radius = radius,
                                                 ObstaclesWidth = obstacles == null ? 0 : obstacles.GetLength(1),
                                                 ObstaclesHeight = obstacles == null ? 0 : obstacles.GetLength(0),
                                                 Blocked = obstacles == null ? IntPtr.Zero : pin.AddrOfPinnedObject(),
                                                 Rule = (int)rule, Variant = (int)variant, Movement = (int)movement,
                                                 MaxStep = maxStep, MinRadius = minRadius };
                IntPtr h;
                Native.Check(Native.wm_crowd_create_with(ctx.Handle, ref c, out h));
                handle.Set(h);
            }
            finally { pin.Free(); }
        }
        public int Count { get { return (int)Native.wm_crowd_size(handle); } }
        public void Reset(Vec2[] positions) { Native.Check(Native.wm_crowd_reset(handle, positions, Native.Size(positions.Length))); }
        // maxSteps: one per agent (0: the crowd's maxStep).
        public void Reset(Vec2[] positions, float[] maxSteps)
        {
            if (maxSteps.Length != positions.Length) throw new ArgumentException("one maximum step per agent");
            Native.Check(Native.wm_crowd_reset_steps(handle, positions, maxSteps, Native.Size(positions.Length)));
        }
        public CrowdStats Step(Vec2[] proposals)
        {
            CrowdStats s;
            Native.Check(Native.wm_crowd_step(handle, proposals, Native.Size(proposals.Length), out s));
            return s;
        }
        public void Positions(Vec2[] into) { Native.Check(Native.wm_crowd_positions(handle, into, Native.Size(into.Length))); }
        public void Verdicts(Verdict[] into) { Native.Check(Native.wm_crowd_verdicts(handle, into, Native.Size(into.Length))); }
        public void Retain(byte[] keep) { Native.Check(Native.wm_crowd_retain(handle, keep, Native.Size(keep.Length))); }
        // Appends agents (checked against everyone; nothing changes on error) and returns their new ids;
        // maxSteps: null (the crowd's) or one per agent.
        // radii: null (the crowd's radius) or one per agent (0: the crowd's; else in [minRadius, radius]).
        public uint[] Spawn(Vec2[] positions, float[] maxSteps = null, float[] radii = null)
        {
            if (maxSteps != null && maxSteps.Length != positions.Length) throw new ArgumentException("one maximum step per agent");
            if (radii != null && radii.Length != positions.Length) throw new ArgumentException("one radius per agent");
            var ids = new uint[positions.Length];
            Native.Check(Native.wm_crowd_spawn_agents(handle, positions, maxSteps, radii, Native.Size(positions.Length), ids));
            return ids;
        }
        // Agents of several sizes (a crowd made with minRadius > 0): maxSteps and radii null or one per agent.
        public void Reset(Vec2[] positions, float[] maxSteps, float[] radii)
        {
            if (maxSteps != null && maxSteps.Length != positions.Length) throw new ArgumentException("one maximum step per agent");
            if (radii != null && radii.Length != positions.Length) throw new ArgumentException("one radius per agent");
            Native.Check(Native.wm_crowd_reset_agents(handle, positions, maxSteps, radii, Native.Size(positions.Length)));
        }
        // Every agent's radius, by slot.
        public float[] Radii()
        {
            var r = new float[Count];
            Native.Check(Native.wm_crowd_radii(handle, r, Native.Size(r.Length)));
            return r;
        }
        public void Despawn(uint[] ids) { Native.Check(Native.wm_crowd_despawn(handle, ids, Native.Size(ids.Length))); }
        // Every agent's stable id, by slot.
        public uint[] Ids()
        {
            var ids = new uint[Count];
            Native.Check(Native.wm_crowd_ids(handle, ids, Native.Size(ids.Length)));
            return ids;
        }
        // The agents as bytes (format in crowd_solver.h); Restore puts them back (same settings, any variant).
        public byte[] Save()
        {
            IntPtr p;
            UIntPtr n;
            Native.Check(Native.wm_crowd_save(handle, out p, out n));
            return Native.Copy(p, n);
        }
        public void Restore(byte[] state) { Native.Check(Native.wm_crowd_restore(handle, state, Native.Size(state.Length))); }
        public void Dispose() { handle.Dispose(); GC.KeepAlive(context); }
    }

    // One map of walls and terrain (warpmind/world/world_map.h): cells of cost 0 (blocked) to 255, all 1 at
    // first; shapes paint them (cost 0, a wall, by default). Costs() gives them row-major: a Crowd's
    // obstacles are the cells of cost 0; Walls(group) the field entities of the walls' surface.
    public sealed class World : IDisposable
    {
        readonly WorldHandle handle = new WorldHandle();
        public readonly int Width, Height;
        public World(float x0, float y0, float width, float height, int columns, int rows)
        {
            IntPtr h;
            Native.Check(Native.wm_world_create(x0, y0, width, height, columns, rows, out h));
            handle.Set(h);
            Width = columns;
            Height = rows;
        }
        public void FillRect(Vec2 lo, Vec2 hi, byte cost = 0) { Native.Check(Native.wm_world_fill_rect(handle, lo, hi, cost)); }
        public void DrawLine(Vec2 a, Vec2 b, float thickness = 0f, byte cost = 0) { Native.Check(Native.wm_world_draw_line(handle, a, b, thickness, cost)); }
        public void FillPolygon(Vec2[] points, byte cost = 0) { Native.Check(Native.wm_world_fill_polygon(handle, points, Native.Size(points.Length), cost)); }
        public byte[] Costs()
        {
            var costs = new byte[Width * Height];
            Native.Check(Native.wm_world_costs(handle, costs, Native.Size(costs.Length)));
            return costs;
        }
        // As a Crowd's obstacles: [row, column], non-zero where the cell is blocked.
        public byte[,] Obstacles()
        {
            var costs = Costs();
            var blocked = new byte[Height, Width];
            for (int y = 0; y < Height; ++y)
                for (int x = 0; x < Width; ++x) blocked[y, x] = (byte)(costs[y * Width + x] == 0 ? 1 : 0);
            return blocked;
        }
        public Entity[] Walls(uint group)
        {
            UIntPtr n;
            Native.Check(Native.wm_world_walls(handle, group, null, UIntPtr.Zero, out n));
            var walls = new Entity[(int)n];
            Native.Check(Native.wm_world_walls(handle, group, walls, n, out n));
            return walls;
        }
        public void Dispose() { handle.Dispose(); }
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

    // An area-of-interest world: Tick takes the players' commands; Notifications and Events copy the
    // tick's results into arrays the caller keeps (grown when too small; the count is returned).
    // A slice of a chunked tick's notifications: receivers [FirstReceiver, EndReceiver) with all their
    // notifications, the tick's FirstNotification-th onwards. Valid during the callback only: copy out what
    // is kept (CopyTo fills an array the caller owns).
    public struct NotificationChunk
    {
        internal Native.Chunk raw;
        public uint FirstReceiver { get { return raw.FirstReceiver; } }
        public uint EndReceiver { get { return raw.EndReceiver; } }
        public ulong FirstNotification { get { return raw.FirstNotification; } }
        public int Count { get { return (int)raw.Count; } }
        public int CopyTo(ref Notification[] into) { return Native.CopyOut(raw.Notifications, raw.Count, ref into); }
    }

    public sealed class Aoi : IDisposable
    {
        readonly Context context;
        readonly AoiHandle handle = new AoiHandle();
        public Aoi(Context ctx, float x0, float y0, float width, float height, float aoi, AoiShape shape = AoiShape.Square,
                   float maxMove = 10, float attackRange = 10, bool trackVisibility = true, AoiVariant variant = AoiVariant.Auto,
                   ulong chunkNotifications = 0)
        {
            context = ctx;
            var c = new Native.AoiConfig { X0 = x0, Y0 = y0, Width = width, Height = height, Aoi = aoi, Shape = (int)shape,
                                           MaxMove = maxMove, AttackRange = attackRange, TrackVisibility = trackVisibility ? 1 : 0,
                                           Variant = (int)variant, ChunkNotifications = chunkNotifications };
            IntPtr h;
            Native.Check(Native.wm_aoi_create(ctx.Handle, ref c, out h));
            handle.Set(h);
            sink = OnChunk;  // one delegate for the handle's life: a chunked tick allocates nothing
        }
        public int Count { get { return (int)Native.wm_aoi_size(handle); } }
        readonly Native.Sink sink;
        Action<NotificationChunk> onChunk;
        Exception chunkError;
        void OnChunk(ref Native.Chunk chunk, IntPtr user)
        {
            if (chunkError != null) return;
            try { onChunk(new NotificationChunk { raw = chunk }); }
            catch (Exception e) { chunkError = e; }  // never across the native frames; rethrown after the tick
        }
        // The tick of Tick, its notifications handed to onChunk in chunks (every receiver in exactly one, in
        // receiver order; at most chunkNotifications each, as the C API says) instead of kept: Notifications
        // then reports none. onChunk runs on this thread before this returns and must not call this Aoi. An
        // exception thrown by onChunk skips the later chunks and is rethrown after the tick.
        public AoiTickStats TickChunked(Command[] commands, Action<NotificationChunk> onChunk)
        {
            if (onChunk == null) throw new ArgumentNullException("onChunk");
            this.onChunk = onChunk;
            chunkError = null;
            AoiTickStats s;
            try { Native.Check(Native.wm_aoi_tick_chunked(handle, commands, Native.Size(commands.Length), sink, IntPtr.Zero, out s)); }
            finally { this.onChunk = null; }
            if (chunkError != null) throw chunkError;
            return s;
        }
        public void Reset(Player[] players) { Native.Check(Native.wm_aoi_reset(handle, players, Native.Size(players.Length))); }
        // The players and the config's fingerprint as bytes (format in aoi.h); Restore puts them back (same
        // settings, any variant) as Reset would.
        public byte[] Save()
        {
            IntPtr p;
            UIntPtr n;
            Native.Check(Native.wm_aoi_save(handle, out p, out n));
            return Native.Copy(p, n);
        }
        public void Restore(byte[] state) { Native.Check(Native.wm_aoi_restore(handle, state, Native.Size(state.Length))); }
        public AoiTickStats Tick(Command[] commands)
        {
            AoiTickStats s;
            Native.Check(Native.wm_aoi_tick(handle, commands, Native.Size(commands.Length), out s));
            return s;
        }
        public int Notifications(ref Notification[] into)
        {
            IntPtr p;
            UIntPtr n;
            Native.Check(Native.wm_aoi_notifications(handle, out p, out n));
            return Native.CopyOut(p, n, ref into);
        }
        public void Events(ref VisibilityEvent[] entered, out int enteredCount, ref VisibilityEvent[] left, out int leftCount)
        {
            IntPtr e, l;
            UIntPtr ne, nl;
            Native.Check(Native.wm_aoi_visibility(handle, out e, out ne, out l, out nl));
            enteredCount = Native.CopyOut(e, ne, ref entered);
            leftCount = Native.CopyOut(l, nl, ref left);
        }
        public void Players(Player[] into) { Native.Check(Native.wm_aoi_players(handle, into, Native.Size(into.Length))); }
        public void Dispose() { handle.Dispose(); GC.KeepAlive(context); }
    }

    // Publish/subscribe region matching in 2-D or 3-D: boxes [lo, hi) per axis.
    public sealed class Regions : IDisposable
    {
        readonly Context context;
        readonly RegionsHandle handle = new RegionsHandle();
        readonly float[] lo, hi;
        public int Dimensions { get; private set; }
        public Regions(Context ctx, DdmVariant variant = DdmVariant.Auto, float gridCell = 0, int dimensions = 2)
        {
            context = ctx;
            IntPtr h;
            Native.Check(Native.wm_regions_create(ctx.Handle, dimensions, (int)variant, gridCell, out h));
            handle.Set(h);
            Dimensions = dimensions;
            lo = new float[dimensions];
            hi = new float[dimensions];
        }
        void Box(float loX, float loY, float hiX, float hiY)
        {
            if (Dimensions != 2) throw new ArgumentException("Regions: this matcher is 3-D; give z too");
            lo[0] = loX; lo[1] = loY; hi[0] = hiX; hi[1] = hiY;
        }
        void Box(float loX, float loY, float loZ, float hiX, float hiY, float hiZ)
        {
            if (Dimensions != 3) throw new ArgumentException("Regions: this matcher is 2-D; give no z");
            lo[0] = loX; lo[1] = loY; lo[2] = loZ; hi[0] = hiX; hi[1] = hiY; hi[2] = hiZ;
        }
        public uint Add(RegionKind kind, float loX, float loY, float hiX, float hiY)
        {
            Box(loX, loY, hiX, hiY);
            uint id;
            Native.Check(Native.wm_regions_add(handle, (int)kind, lo, hi, out id));
            return id;
        }
        public uint Add(RegionKind kind, float loX, float loY, float loZ, float hiX, float hiY, float hiZ)
        {
            Box(loX, loY, loZ, hiX, hiY, hiZ);
            uint id;
            Native.Check(Native.wm_regions_add(handle, (int)kind, lo, hi, out id));
            return id;
        }
        public void Update(uint id, float loX, float loY, float hiX, float hiY)
        {
            Box(loX, loY, hiX, hiY);
            Native.Check(Native.wm_regions_update(handle, id, lo, hi));
        }
        public void Update(uint id, float loX, float loY, float loZ, float hiX, float hiY, float hiZ)
        {
            Box(loX, loY, loZ, hiX, hiY, hiZ);
            Native.Check(Native.wm_regions_update(handle, id, lo, hi));
        }
        public void Remove(uint id) { Native.Check(Native.wm_regions_remove(handle, id)); }
        // The overlapping (publication, subscription) pairs, sorted, into `into` (grown when too small).
        public int Match(ref Pair[] into)
        {
            IntPtr p;
            UIntPtr n;
            Native.Check(Native.wm_regions_match(handle, out p, out n));
            return Native.CopyOut(p, n, ref into);
        }
        public void Dispose() { handle.Dispose(); GC.KeepAlive(context); }
    }

    // Navigation fields (warpmind/nav/nav.h): costs row-major, width x height, 0 blocked, 1..255.
    public static class Navigation
    {
        // goals: (x, y) pairs; distances and directions: goals x width x height each, goal-major.
        public static void DistanceFields(Context ctx, int width, int height, byte[] costs, int[] goals,
                                          float[] distances, sbyte[] directions)
        {
            if (goals.Length % 2 != 0) throw new ArgumentException("DistanceFields: goals are (x, y) pairs");
            long need = (long)goals.Length / 2 * width * height;
            if (distances.Length != need || directions.Length != need)
                throw new ArgumentException("DistanceFields: distances and directions need " + need + " entries each");
            Native.Check(Native.wm_nav_fields(ctx.Handle, width, height, costs, goals, Native.Size(goals.Length / 2), distances, directions));
        }
        // One field, the walk to the nearest of the goals ((x, y) pairs; none: +infinity everywhere);
        // distances and directions: width x height each.
        public static void GoalSetField(Context ctx, int width, int height, byte[] costs, int[] goals,
                                        float[] distances, sbyte[] directions)
        {
            if (goals.Length % 2 != 0) throw new ArgumentException("GoalSetField: goals are (x, y) pairs");
            long need = (long)width * height;
            if (distances.Length != need || directions.Length != need)
                throw new ArgumentException("GoalSetField: distances and directions need " + need + " entries each");
            Native.Check(Native.wm_nav_goal_set_field(ctx.Handle, width, height, costs, goals, Native.Size(goals.Length / 2), distances, directions));
        }
        public static void Steer(int width, int height, float[] distances, sbyte[] directions, Vec2[] positions, Vec2[] steer, float[] dist)
        {
            Native.Check(Native.wm_nav_steer(width, height, distances, directions, positions, Native.Size(positions.Length), steer, dist));
        }
        // DistanceFields (goalSet false) or GoalSetField (true) with the unreachable option.
        public static void Fields(Context ctx, int width, int height, byte[] costs, int[] goals, bool goalSet,
                                  Unreachable unreachable, float[] distances, sbyte[] directions)
        {
            if (goals.Length % 2 != 0) throw new ArgumentException("Fields: goals are (x, y) pairs");
            long need = (goalSet ? 1L : (long)goals.Length / 2) * width * height;
            if (distances.Length != need || directions.Length != need)
                throw new ArgumentException("Fields: distances and directions need " + need + " entries each");
            Native.Check(Native.wm_nav_fields_with(ctx.Handle, width, height, costs, goals, Native.Size(goals.Length / 2),
                                                   goalSet ? 1 : 0, (int)unreachable, distances, directions));
        }
        // Unit sizes (warpmind/nav/clearance.h): clearance and the costs of a size class, width x height each.
        public static void Clearance(int width, int height, byte[] costs, ushort[] clearance)
        {
            if (clearance.Length != (long)width * height) throw new ArgumentException("Clearance: width x height values");
            Native.Check(Native.wm_nav_clearance(width, height, costs, clearance));
        }
        public static void ClassCosts(int width, int height, byte[] costs, int sizeClass, byte[] classCosts)
        {
            if (classCosts.Length != (long)width * height) throw new ArgumentException("ClassCosts: width x height values");
            Native.Check(Native.wm_nav_class_costs(width, height, costs, sizeClass, classCosts));
        }
        public static int SizeClass(double radiusCells)
        {
            int n;
            Native.Check(Native.wm_nav_size_class(radiusCells, out n));
            return n;
        }
        // Line of sight and waypoints (warpmind/nav/sight.h).
        public static bool LineOfSight(int width, int height, byte[] costs, int ax, int ay, int bx, int by)
        {
            int visible;
            Native.Check(Native.wm_nav_line_of_sight(width, height, costs, ax, ay, bx, by, out visible));
            return visible != 0;
        }
        public static void Waypoints(Context ctx, int width, int height, byte[] costs, float[] distances, sbyte[] directions, uint[] waypoints)
        {
            long need = (long)width * height;
            if (distances.Length != need || directions.Length != need || waypoints.Length != need)
                throw new ArgumentException("Waypoints: distances, directions and waypoints need " + need + " entries each");
            Native.Check(Native.wm_nav_waypoints(ctx.Handle, width, height, costs, distances, directions, waypoints));
        }
        public static void SteerToWaypoints(int width, int height, float[] distances, uint[] waypoints, Vec2[] positions, Vec2[] steer, float[] dist)
        {
            Native.Check(Native.wm_nav_steer_waypoints(width, height, distances, waypoints, positions, Native.Size(positions.Length), steer, dist));
        }
    }

    // Navigation fields kept up to date as cells change (warpmind/nav/nav_fields.h): after each Update,
    // every field equals Navigation.DistanceFields on the changed grid, bit for bit.
    public sealed class NavFields : IDisposable
    {
        readonly Context context;
        readonly NavFieldsHandle handle = new NavFieldsHandle();
        // goals: (x, y) pairs.
        public NavFields(Context ctx, int width, int height, byte[] costs, int[] goals)
        {
            if (goals.Length % 2 != 0) throw new ArgumentException("NavFields: goals are (x, y) pairs");
            context = ctx;
            IntPtr h;
            Native.Check(Native.wm_navfields_create(ctx.Handle, width, height, costs, goals, Native.Size(goals.Length / 2), out h));
            handle.Set(h);
        }
        // changes: (x, y, new cost 0..255; 0 blocks) triples.
        public void Update(int[] changes)
        {
            if (changes.Length % 3 != 0) throw new ArgumentException("Update: changes are (x, y, cost) triples");
            Native.Check(Native.wm_navfields_update(handle, changes, Native.Size(changes.Length / 3)));
        }
        public int Width { get { int w, h; UIntPtr g; Native.Check(Native.wm_navfields_size(handle, out w, out h, out g)); return w; } }
        public int Height { get { int w, h; UIntPtr g; Native.Check(Native.wm_navfields_size(handle, out w, out h, out g)); return h; } }
        public int Goals { get { int w, h; UIntPtr g; Native.Check(Native.wm_navfields_size(handle, out w, out h, out g)); return (int)g; } }
        // One goal's field: Width x Height distances and directions (directions may be null).
        public void Read(int goal, float[] distances, sbyte[] directions)
        {
            if (goal < 0) throw new ArgumentException("Read: goal " + goal);
            Native.Check(Native.wm_navfields_read(handle, (UIntPtr)goal, distances, directions, Native.Size(distances.Length)));
        }
        // The grid as updated and the goals as bytes (format in nav_fields.h); Restore replaces this
        // object's grid and goals with saved ones and computes their fields.
        public byte[] Save()
        {
            IntPtr p;
            UIntPtr n;
            Native.Check(Native.wm_navfields_save(handle, out p, out n));
            return Native.Copy(p, n);
        }
        public void Restore(byte[] state) { Native.Check(Native.wm_navfields_restore(handle, state, Native.Size(state.Length))); }
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

    public enum Game { Chess = 0, Connect6 = 1 }

    // A move for each of many positions at once (warpmind/search/search_many.h): a game server's AI
    // opponents. On the GPU when the context has one, else on its CPU threads; both give the same moves.
    public sealed class Tables : IDisposable
    {
        readonly Context context;
        readonly TablesHandle handle = new TablesHandle();
        Native.Result[] raw = new Native.Result[0];
        // width: Connect6's candidate turns per node (ignored for chess).
        public Tables(Context ctx, Game game, int width = 16)
        {
            context = ctx;
            IntPtr h;
            Native.Check(Native.wm_tables_create(ctx.Handle, (int)game, width, out h));
            handle.Set(h);
        }
        // positions: FENs (chess) or turns from the empty board (Connect6); results[i] for positions[i]
        // (grown when too small). Returns every node the call visited.
        public ulong Search(string[] positions, int depth, ref SearchResult[] results)
        {
            if (raw.Length < positions.Length) raw = new Native.Result[positions.Length];
            if (results == null || results.Length < positions.Length) results = new SearchResult[positions.Length];
            ulong nodes;
            Native.Check(Native.wm_tables_search(handle, positions, Native.Size(positions.Length), depth, raw, out nodes));
            for (int i = 0; i < positions.Length; ++i) results[i] = Native.ToResult(ref raw[i]);
            return nodes;
        }
        public void Dispose() { handle.Dispose(); GC.KeepAlive(context); }
    }
}
