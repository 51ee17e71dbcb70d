"""warpmind from Python: potential-field layers, collision-checked crowds, area-of-interest worlds,
region matching (2-D and 3-D), combat volleys, navigation fields, one world map of walls for them, the chess and Connect6 engines and a move
for each of many positions at once (Tables), on the GPU when one is usable and on the CPU threads otherwise.

    import numpy as np, warpmind
    ctx = warpmind.Context()                      # 'auto', 'cpu' or 'cuda'
    attract = warpmind.charge_kind("circle", 40.0)
    field = warpmind.Field(ctx, world=(0, 0, 128, 128), size=(128, 128), kinds=[attract], layers=[[(0, 0)]])
    field.build(np.array([[64, 64]], np.float32), np.array([0], np.uint32))
    heat = field.layer(0)                         # (rows, columns) float32

Every call checks its arguments: a bad one raises ValueError, a missing backend warpmind.Unavailable,
anything else warpmind.Error, each with the library's message; nothing changes then. The contracts
(rounding, ties, limits) are the C++ headers' (warpmind/<module>/*.h) and docs/embedding.md.
"""
from ._warpmind import (  # noqa: F401
    __version__,
    COMMAND_DTYPE,
    Aoi,
    ChargeKind,
    Combat,
    Chess,
    Connect6,
    Context,
    Crowd,
    Error,
    Field,
    NavFields,
    Regions,
    Tables,
    Unavailable,
    World,
    charge_kind,
    class_costs,
    clearance,
    distance_fields,
    generate_map,
    goal_set_field,
    line_of_sight,
    read_map,
    size_class,
    steer,
    steer_to_waypoints,
    waypoints,
    write_map,
)

# Verdicts of Crowd.verdicts, as crowd_solver.h numbers them.
MOVED, STAYED, OUT_OF_WORLD, BLOCKED, COLLISION, TOO_FAR = range(6)
