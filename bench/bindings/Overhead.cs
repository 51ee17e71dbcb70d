// The C# binding's cost per call: a crowd of N agents (100,000 by default) stepped T times through
// Warpmind.Crowd.Step, against the same steps through the C API's wm_crowd_step called directly (its
// own P/Invoke declaration, no binding code between), on one CPU context. Prints one JSON line.
//   mcs -unsafe -r:Warpmind.dll Overhead.cs && LD_LIBRARY_PATH=<dir of libwarpmind_c.so> mono Overhead.exe [N] [T]
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Runtime.InteropServices;
using Warpmind;

static class Overhead
{
    [DllImport("warpmind_c")] static extern int wm_context_create(int backend, uint threads, out IntPtr ctx);
    [DllImport("warpmind_c")] static extern int wm_crowd_create(IntPtr ctx, float x0, float y0, float w, float h, float r, out IntPtr c);
    [DllImport("warpmind_c")] static extern int wm_crowd_reset(IntPtr c, Vec2[] p, UIntPtr n);
    [DllImport("warpmind_c")] static extern int wm_crowd_step(IntPtr c, Vec2[] p, UIntPtr n, IntPtr stats);

    static double Median(List<double> v) { v.Sort(); return v[v.Count / 2]; }

    static int Main(string[] args)
    {
        int n = args.Length > 0 ? int.Parse(args[0]) : 100000, ticks = args.Length > 1 ? int.Parse(args[1]) : 20;
        int side = (int)Math.Ceiling(Math.Sqrt(n));
        var start = new Vec2[n];
        for (int i = 0; i < n; ++i) start[i] = new Vec2(2 * (i % side) + 1, 2 * (i / side) + 1);
        float w = 2f * side + 2;
        var rng = new Random(1);
        var proposals = new List<Vec2[]>();
        for (int t = 0; t < ticks; ++t)
        {
            var p = new Vec2[n];
            for (int i = 0; i < n; ++i) p[i] = new Vec2(start[i].X + (float)(rng.NextDouble() * 1.2 - 0.6), start[i].Y + (float)(rng.NextDouble() * 1.2 - 0.6));
            proposals.Add(p);
        }
        var sw = new Stopwatch();
        var binding = new List<double>();
        using (var ctx = new Context(Backend.Cpu))
        using (var crowd = new Crowd(ctx, 0, 0, w, w, 0.5f, null, CrowdRule.Strict, CrowdVariant.CpuReference))
        {
            crowd.Reset(start);
            foreach (var p in proposals) { sw.Restart(); crowd.Step(p); binding.Add(sw.Elapsed.TotalMilliseconds); }
        }
        IntPtr c_ctx, c;
        if (wm_context_create(1, 0, out c_ctx) != 0 || wm_crowd_create(c_ctx, 0, 0, w, w, 0.5f, out c) != 0 ||
            wm_crowd_reset(c, start, new UIntPtr((uint)n)) != 0)
            return 1;
        var direct = new List<double>();
        foreach (var p in proposals) { sw.Restart(); wm_crowd_step(c, p, new UIntPtr((uint)n), IntPtr.Zero); direct.Add(sw.Elapsed.TotalMilliseconds); }
        double b = Median(binding), d = Median(direct);
        Console.WriteLine("{\"binding\": \"csharp\", \"agents\": " + n + ", \"ticks\": " + ticks + ", \"step_ms\": " + b.ToString("F4") +
                          ", \"c_api_step_ms\": " + d.ToString("F4") + ", \"overhead_ms\": " + (b - d).ToString("F4") + "}");
        return 0;
    }
}
