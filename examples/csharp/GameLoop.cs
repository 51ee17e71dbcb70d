// warpmind from C#, shaped like a Unity MonoBehaviour (Start once, Update every frame) but runnable under
// mono: 200 units walk to a rally point over a potential field with the crowd solver keeping them apart,
// an AOI world tells each unit who moved within 16 units of it, two teams trade volleys whose dead leave
// the combat, the crowd and the AOI world, and the chess engine answers 1. e4. Exits 1 if the squad did
// not close in or no unit was told of another.
//   mcs -r:<prefix>/lib/warpmind/dotnet/Warpmind.dll GameLoop.cs && LD_LIBRARY_PATH=<prefix>/lib mono GameLoop.exe
using System;
using Warpmind;

class GameLoop
{
    Context ctx;
    Field field;
    Crowd crowd;
    Combat combat;
    Aoi aoi;
    Vec2[] positions, before, targets;
    Move[] moves;
    byte[] keep;
    Player[] players;
    Command[] commands;
    Notification[] told;
    int aoiPlayers = -1;
    long notifications;

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
        aoi = new Aoi(ctx, 0, 0, 128, 128, 16, AoiShape.Circle, 4);
        Allocate(n);
    }

    void Allocate(int n)
    {
        positions = new Vec2[n]; before = new Vec2[n]; targets = new Vec2[n]; moves = new Move[n]; keep = new byte[n];
        players = new Player[n]; commands = new Command[n];
    }

    // Per frame: the buffers are reused (they shrink only when units die), so the loop allocates nothing
    // in the library or the binding.
    void Update()
    {
        int n = crowd.Count;
        if (positions.Length != n) Allocate(n);
        crowd.Positions(before);
        field.BestMove(0, before, 3, moves);
        for (int i = 0; i < n; ++i) targets[i] = moves[i].Target;
        crowd.Step(targets);
        crowd.Positions(positions);
        if (aoiPlayers != n)
        {  // the first frame, or units died since the last: the AOI world starts again from the crowd
            for (int i = 0; i < n; ++i) players[i] = new Player(positions[i].X, positions[i].Y, 100);
            aoi.Reset(players);
            aoiPlayers = n;
        }
        else
        {  // each unit's step as an AOI move; every unit within 16 units of a mover is told
            for (int i = 0; i < n; ++i) commands[i] = Command.Move((uint)i, positions[i].X - before[i].X, positions[i].Y - before[i].Y);
            notifications += (long)aoi.Tick(commands).Notifications;
            aoi.Notifications(ref told);  // into an array kept across frames
        }
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
        Console.WriteLine(end.Length + " units left, " + mean.ToString("F1") + " units from the rally point on average; " +
                          game.notifications + " AOI notifications");
        using (var chess = new Chess(game.ctx, 16))
        {
            chess.SetPosition(null, "e2e4");
            Console.WriteLine("chess: 1. e4 " + chess.Search(6).Move);
        }
        return end.Length > 0 && mean < 20 && game.notifications > 0 ? 0 : 1;
    }
}
