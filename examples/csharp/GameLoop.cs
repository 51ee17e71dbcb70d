// warpmind from C#, shaped like a Unity MonoBehaviour (Start once, Update every frame) but runnable under
// mono: 200 units walk to a rally point over a potential field with the crowd solver keeping them apart,
// two teams trade volleys whose dead leave both the combat and the crowd, and the chess engine answers
// 1. e4. Exits 1 if the squad did not close in.
//   mcs -r:<prefix>/lib/warpmind/dotnet/Warpmind.dll GameLoop.cs && LD_LIBRARY_PATH=<prefix>/lib mono GameLoop.exe
using System;
using Warpmind;

class GameLoop
{
    Context ctx;
    Field field;
    Crowd crowd;
    Combat combat;
    Vec2[] positions, targets;
    Move[] moves;
    byte[] keep;

    void Start()
    {
        ctx = new Context();  // the GPU when one is usable, else the CPU threads
        Console.WriteLine("warpmind " + Context.Version + (ctx.UsesGpu ? " on the GPU" : " on the CPU"));
        var rally = ChargeKind.Linear(200, -1, 200);  // 200 - d up to 200 units: highest at the point
        field = new Field(ctx, 0, 0, 128, 128, 128, 128, new[] { rally }, new[] { new LayerRule(0, 0, 0) }, 1);
        field.Build(new[] { new Entity(100, 100, 0) });
        int n = 200;
        positions = new Vec2[n];
        var teams = new byte[n];
        var hp = new float[n];
        for (int i = 0; i < n; ++i)
        {
            positions[i] = new Vec2(5 + 2 * (i % 20), 5 + 2 * (i / 20));
            teams[i] = (byte)(i % 20 < 10 ? 0 : 1);
            hp[i] = 100;
        }
        crowd = new Crowd(ctx, 0, 0, 128, 128, 0.5f);
        crowd.Reset(positions);
        combat = new Combat(ctx, 0, 0, 128, 128, 2.5f, 10, 3);
        combat.Reset(teams, hp);
        targets = new Vec2[n];
        moves = new Move[n];
        keep = new byte[n];
    }

    // Per frame: the buffers are reused (they shrink only when units die), so the loop allocates nothing
    // in the library or the binding.
    void Update()
    {
        int n = crowd.Count;
        if (positions.Length != n) { positions = new Vec2[n]; targets = new Vec2[n]; moves = new Move[n]; keep = new byte[n]; }
        crowd.Positions(positions);
        field.BestMove(0, positions, 3, moves);
        for (int i = 0; i < n; ++i) targets[i] = moves[i].Target;
        crowd.Step(targets);
        crowd.Positions(positions);
        combat.Fire(positions, keep);
        crowd.Retain(keep);  // the dead leave the crowd too
    }

    static int Main()
    {
        var game = new GameLoop();
        game.Start();
        for (int frame = 0; frame < 200; ++frame) game.Update();
        var end = new Vec2[game.crowd.Count];
        game.crowd.Positions(end);
        double sum = 0;
        foreach (Vec2 p in end) sum += Math.Sqrt((p.X - 100) * (p.X - 100) + (p.Y - 100) * (p.Y - 100));
        double mean = end.Length > 0 ? sum / end.Length : 0;
        Console.WriteLine(end.Length + " units left, " + mean.ToString("F1") + " units from the rally point on average");
        using (var chess = new Chess(game.ctx, 16))
        {
            chess.SetPosition(null, "e2e4");
            Console.WriteLine("chess: 1. e4 " + chess.Search(6).Move);
        }
        return end.Length > 0 && mean < 20 ? 0 : 1;
    }
}
