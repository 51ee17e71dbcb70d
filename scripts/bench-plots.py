#!/usr/bin/python3
"""Figures from the warpmind-bench results files (docs/images/bench-*.png).

usage: scripts/bench-plots.py [--results bench/results] [--out docs/images] [--device h100]

Run from the repository root with Debian's Python and matplotlib (`apt-get install -y
python3-matplotlib`); it needs nothing else. It reads <results>/<device>/<suite>.json for the suites
field, crowd, aoi, ddm, chess and connect6, and the node counts of the hybrid suite from
<results>/<device>/hybrid*.json (or <results>/cpu/hybrid*.json, where node counts are kept), draws
each suite's figures and prints the path of every PNG it writes. A suite without a results file is
skipped with a one-line note, so the figures for a suite appear once its file is committed.

Reading the figures:
- Markers are filled where the record's output was checked against the reference in the same run and
  hollow where it was not (`"checked": false`); the title counts the unchecked records.
- The dashed black line is the physical floor the suite prints beside its GPU times (`floor_ms`).
- Lines marked "seed" (dashed, x markers, or grey) are numbers published in the paper the module
  reproduces, measured on that paper's hardware; the tables below give each number's source.

The images depend only on the results files and the matplotlib version: the Agg backend, a fixed size
and DPI, no time stamp and no software tag in the PNG, so a second run on the same input writes the
same bytes.
"""
import argparse
import glob
import json
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402
from matplotlib.colors import LogNorm  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch, Rectangle  # noqa: E402

DPI = 100
plt.rcParams.update({
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.6,
    "legend.fontsize": 8,
    "legend.framealpha": 0.9,
    "svg.hashsalt": "warpmind",
    "figure.dpi": DPI,
    "savefig.dpi": DPI,
})

# ---------------------------------------------------------------------------------------------------
# Published numbers of the source papers
# ---------------------------------------------------------------------------------------------------

# field — Elmir, "Using Multicore Programming on the GPU to Improve Creation of Potential Fields" (MSc
# thesis, 2013), Appendix A: mean build time in ms over 10 runs (the tables' standard deviations are
# left out) on an Intel Core i7 920 (one thread) and an NVIDIA GeForce GTX 660 (Table 5.1, p. 16); a
# 256x256 world, circle entities placed at random. Columns: resolution, entities (the thesis's last two
# columns), then its five methods: CPU Naive, CPU Mem (memory copy), GPU Naive, GPU Coalesced, GPU Shared.
SEED_FIELD_HW = "GTX 660 / i7 920, 1 thread"
SEED_FIELD_COLUMNS = ["cpu-naive", "cpu-stamp", "gpu-naive", "gpu-coalesced", "gpu-shared"]
SEED_FIELD_NAMES = ["CPU Naive", "CPU Mem", "GPU Naive", "GPU Coalesced", "GPU Shared"]
SEED_FIELD_SOURCE = {15: "Table A.1", 8: "Table A.2", 4: "Table A.3"}
SEED_FIELD_TABLES = {
    # Table A.1 "Results for entities with radius = 15", pp. 31-32
    15: """
     256   64      59.47     0.96    0.84    0.31    0.21
     512   64     232.64     4.15    1.12    0.47    0.31
     768   64     521.11     9.32    2.17    0.99    0.62
    1024   64     954.57    15.43    3.58    1.70    1.06
    1280   64    1517.76    24.34    5.37    2.71    1.69
    1536   64    2230.73    35.18    8.67    4.76    2.65
    1792   64    2847.58    48.04   13.71    6.91    3.67
    2048   64    3783.88    62.71   21.31   13.10    4.79
     256  128     119.99     1.88    0.81    0.32    0.60
     512  128     493.23     7.72    1.80    0.87    0.54
     768  128    1107.24    17.43    3.79    1.96    1.18
    1024  128    1961.65    35.33    8.21    4.33    2.60
    1280  128    3062.39    48.28   16.75    9.90    5.38
    1536  128    4039.96    70.49   33.73   18.85   11.25
    1792  128    5968.61    95.69   49.90   28.21   16.80
    2048  128    7796.91   125.71   23.83   13.80    8.20
     256  256     244.18     3.69    1.00    0.47    0.29
     512  256     922.81    15.37    3.18    1.69    1.01
     768  256    2061.00    34.70    6.74    3.74    2.21
    1024  256    3636.97    62.03   11.74    6.58    3.89
    1280  256    5587.90    97.70   17.89   10.24    6.03
    1536  256    8716.00   141.08   25.33   14.73    8.66
    1792  256   12057.19   191.09   34.19   20.03   11.78
    2048  256   14772.60   250.31   44.42   26.14   15.35
     256  512     473.48     7.36    1.71    0.88    0.53
     512  512    1907.14    30.81    5.93    3.34    1.95
     768  512    4392.49    69.75   15.13    8.75    5.10
    1024  512    7310.89   123.98   31.89   18.31   10.67
    1280  512   12045.14   197.90   40.62   23.86   14.81
    1536  512   16414.42   282.46   49.91   29.41   17.51
    1792  512   23189.52   382.62   60.44   35.76   20.76
    2048  512   30782.90   500.44   78.08   46.30   26.94
     256  768     683.22    11.04    2.17    1.16    0.69
     512  768    2783.49    46.27    7.74    4.43    2.58
     768  768    6203.32   104.82   22.56   13.20    7.73
    1024  768   11805.23   185.53   48.89   28.49   16.65
    1280  768   18295.94   291.26   52.89   31.15   18.13
    1536  768   26396.77   473.03   66.42   39.26   22.77
    1792  768   34196.75   574.02   89.54   53.19   30.90
    2048  768   47108.58   750.93  116.66   69.40   40.33
     256 1024     955.24    14.73    2.79    1.53    0.89
     512 1024    3831.37    61.63   10.75    6.33    3.65
     768 1024    8135.31   140.17   33.80   19.85   11.48
    1024 1024   14570.81   247.41   45.02   26.46   15.37
    1280 1024   22816.93   388.54   61.77   36.52   21.19
    1536 1024   34343.75   562.92   88.01   52.23   30.68
    1792 1024   44101.41   766.16  119.20   70.91   41.13
    2048 1024   59103.40  1000.75  155.38   92.56   53.74
     256 1280    1128.58    18.43    3.52    1.91    1.11
     512 1280    4649.93    76.75   15.22    8.59    4.94
     768 1280   10803.60   201.50   43.12   24.53   14.16
    1024 1280   19335.90   308.80   54.66   31.02   17.93
    1280 1280   30604.32   491.94   79.47   45.35   26.31
    1536 1280   42201.04   789.94  113.60   65.07   37.75
    1792 1280   55249.77   956.87  154.89   88.75   49.44
    2048 1280   73298.16  1252.98  201.88  115.69   64.15
     256 1536    1406.87    22.09    4.21    2.30    1.34
     512 1536    5612.73    92.03   18.76   10.61    6.10
     768 1536   12157.93   242.00   47.14   26.93   15.54
    1024 1536   23229.90   370.94   62.11   35.36   20.50
    1280 1536   33631.77   584.02   94.96   54.25   31.46
    1536 1536   51134.13   945.24  136.46   78.13   48.30
    1792 1536   66061.47  1149.01  186.30  106.39   60.70
    2048 1536   86510.30  1501.94  242.66  138.77   79.55
     256 1792    1592.86    25.75    4.83    2.63    1.52
     512 1792    6546.98   107.60   19.11   10.84    6.23
     768 1792   15130.07   282.52   52.93   30.23   17.45
    1024 1792   25514.16   432.71   72.59   41.36   23.96
    1280 1792   40287.54   681.22  110.78   63.26   36.68
    1536 1792   59769.79  1104.43  159.54   91.24   52.83
    1792 1792   78623.58  1339.86  218.00  124.10   72.15
    2048 1792  102588.00  1751.46  283.55  161.88   94.13
     256 2048    1895.78    29.50    5.47    3.00    1.73
     512 2048    7831.87   124.25   20.89   11.86    7.35
     768 2048   16605.14   278.73   52.34   29.89   16.23
    1024 2048   29454.26   495.08   81.64   46.56   26.95
    1280 2048   46295.56   778.60  126.74   72.38   41.95
    1536 2048   65378.24  1123.80  182.69  104.18   60.39
    1792 2048  103790.37  1530.87  250.12  141.69   82.56
    2048 2048  137131.60  2000.29  324.64  185.02  106.66
""",
    # Table A.2 "Results for entities with radius = 8", pp. 33-34
    8: """
     256   64      57.60     0.30    0.50    0.21    0.12
     512   64     234.13     1.10    1.05    0.41    0.28
     768   64     514.23     2.45    1.95    0.86    0.57
    1024   64     933.77     4.41    3.33    1.53    0.96
    1280   64    1518.35     6.95    4.62    2.38    1.49
    1536   64    2118.66    10.02    6.31    3.43    2.10
    1792   64    2838.36    14.80    8.20    4.48    2.85
    2048   64    3839.67    20.50   10.59    5.96    3.71
     256  128     118.67     0.59    0.62    0.25    0.17
     512  128     485.20     2.18    1.66    0.79    0.49
     768  128    1048.81     4.93    3.31    1.70    1.04
    1024  128    1880.20     8.92    5.74    2.98    1.80
    1280  128    2925.13    13.86    8.82    4.83    2.95
    1536  128    4360.94    20.12   13.31    7.56    4.55
    1792  128    5891.99    27.71   17.77   10.26    6.17
    2048  128    7206.43    40.86   22.88   13.38    8.02
     256  256     227.39     1.17    1.03    0.47    0.30
     512  256     963.14     4.34    3.23    1.73    1.03
     768  256    2032.05     9.82    6.82    3.81    2.25
    1024  256    3936.11    17.78   11.96    6.68    3.95
    1280  256    5755.68    27.84   18.09   10.36    6.16
    1536  256    8361.78    40.26   25.68   14.99    8.89
    1792  256   11117.01    55.26   34.63   20.42   12.00
    2048  256   15371.90    71.98   45.04   26.62   15.65
     256  512     452.83     2.15    1.75    0.89    0.54
     512  512    1849.30     8.51    6.00    3.39    1.98
     768  512    4166.44    19.34   13.05    7.54    4.45
    1024  512    7712.56    35.56   23.06   13.29    7.81
    1280  512   11711.02    55.64   34.73   20.35   11.87
    1536  512   17661.14    80.30   49.22   29.11   16.93
    1792  512   23213.12   110.26   61.33   36.35   21.17
    2048  512   30547.85   144.23   78.13   46.44   27.03
     256  768     740.89     3.21    2.18    1.16    0.69
     512  768    2839.64    12.78    7.74    4.44    2.61
     768  768    6169.74    29.06   16.94    9.86    5.73
    1024  768   11757.54    53.32   29.97   17.44   10.16
    1280  768   17872.85    83.48   46.17   27.14   15.89
    1536  768   25263.01   120.33   66.03   39.13   22.88
    1792  768   36238.79   164.68   89.58   53.29   31.02
    2048  768   45980.03   215.89  116.77   69.55   40.48
     256 1024     985.54     4.28    2.80    1.53    0.90
     512 1024    3951.82    16.98   10.19    5.92    3.42
     768 1024    8803.87    38.73   22.37   13.15    7.62
    1024 1024   14470.23    71.19   39.55   23.31   13.50
    1280 1024   24216.70   111.59   61.21   36.19   21.06
    1536 1024   33666.01   160.85   87.81   52.14   30.35
    1792 1024   46010.38   220.28  119.46   71.16   41.27
    2048 1024   60099.51   287.49  155.56   92.70   53.90
     256 1280    1153.09     5.35    3.53    1.89    1.13
     512 1280    4707.38    21.22   13.14    7.41    4.31
     768 1280   10557.87    48.51   28.90   16.43    9.49
    1024 1280   19317.81    89.11   51.08   29.07   16.85
    1280 1280   29234.08   138.92   79.18   45.19   26.34
    1536 1280   41573.67   200.82  113.89   65.26   37.97
    1792 1280   60285.46   275.09  155.18   89.02   51.56
    2048 1280   74511.59   360.35  202.07  115.96   67.32
     256 1536    1417.25     6.41    4.21    2.33    1.33
     512 1536    5881.39    25.50   15.86    8.95    5.15
     768 1536   12436.71    58.20   34.72   19.76   11.43
    1024 1536   22341.21   106.54   61.14   34.84   20.19
    1280 1536   35287.31   167.08   94.89   54.26   31.51
    1536 1536   51403.44   240.41  136.57   78.52   45.43
    1792 1536   69054.75   330.70  186.59  106.64   62.16
    2048 1536   88502.90   431.67  242.68  138.97   80.74
     256 1792    1667.54     7.47    4.83    2.63    1.53
     512 1792    6733.32    29.75   18.20   10.37    5.93
     768 1792   14144.51    67.91   40.23   22.97   13.27
    1024 1792   25873.22   124.35   71.24   40.62   23.56
    1280 1792   40915.35   194.43  110.76   63.22   36.76
    1536 1792   61968.01   281.07  159.08   91.17   52.95
    1792 1792   80674.55   384.49  219.10  124.26   72.54
    2048 1792  100599.60   503.47  283.60  161.96   94.25
     256 2048    1862.86     8.54    5.53    3.03    1.76
     512 2048    7161.24    34.00   20.97   11.91    6.85
     768 2048   16812.59    77.47   46.45   26.53   15.32
    1024 2048   28763.84   142.27   81.30   46.47   26.89
    1280 2048   46346.86   222.37  126.93   72.49   42.11
    1536 2048   67751.06   321.57  183.57  104.51   60.72
    1792 2048  101639.18   440.03  250.61  141.98   82.98
    2048 2048  135648.60   577.26  324.68  185.18  106.80
""",
    # Table A.3 "Results for entities with radius = 4", pp. 35-36
    4: """
     256   64      61.61     0.10    0.58    0.44    0.30
     512   64     229.70     0.32    1.17    0.55    0.34
     768   64     525.06     0.64    2.28    1.01    0.65
    1024   64     975.69     1.11    3.54    1.73    1.10
    1280   64    1550.34     1.79    5.30    2.67    1.67
    1536   64    2076.52     2.49    7.16    3.81    2.38
    1792   64    2928.00     3.54    9.26    5.15    3.20
    2048   64    3785.54     5.01   11.80    6.70    4.15
     256  128     122.32     0.20    0.85    0.40    0.27
     512  128     469.67     0.62    2.60    1.24    0.78
     768  128    1110.61     1.27    5.33    2.66    1.63
    1024  128    1842.69     2.26    8.65    4.37    2.64
    1280  128    2911.97     3.45   11.08    6.12    3.68
    1536  128    4319.53     5.00   13.93    7.92    4.71
    1792  128    5883.79     7.03   17.85   10.26    6.16
    2048  128    7499.33     9.88   22.18   12.84    7.68
     256  256     229.01     0.39    0.98    0.48    0.31
     512  256     941.27     1.20    3.02    1.63    0.98
     768  256    2202.06     2.53    6.29    3.48    2.07
    1024  256    3694.64     4.41   10.44    5.91    3.50
    1280  256    6090.33     6.88   15.98    9.15    5.41
    1536  256    8168.99     9.98   22.58   13.14    7.76
    1792  256   11967.81    13.98   30.52   17.85   10.50
    2048  256   14279.07    18.28   39.50   23.29   13.71
     256  512     486.65     0.58    1.56    0.79    0.48
     512  512    1884.61     2.22    5.31    2.98    1.74
     768  512    4094.29     4.83   11.53    6.60    3.85
    1024  512    7719.74     8.61   20.06   11.64    6.80
    1280  512   11411.26    13.53   31.07   18.17   10.61
    1536  512   16095.05    19.73   44.31   26.11   15.22
    1792  512   23577.02    27.81   60.07   35.55   20.72
    2048  512   29193.40    36.76   78.05   46.39   27.06
     256  768     703.47     0.87    2.18    1.16    0.69
     512  768    2906.35     3.31    7.76    4.44    2.58
     768  768    6661.20     7.21   16.97    9.86    5.73
    1024  768   11273.49    12.90   29.74   17.42   10.14
    1280  768   17219.72    20.26   46.24   27.20   15.84
    1536  768   26448.32    29.69   66.04   39.13   22.78
    1792  768   33255.50    41.82   89.61   53.23   30.99
    2048  768   46293.21    55.22  116.65   69.52   40.42
     256 1024     968.33     1.16    2.79    1.54    0.90
     512 1024    3736.77     4.42   10.16    5.93    3.42
     768 1024    8204.87     9.64   22.43   13.17    7.63
    1024 1024   15246.40    17.21   39.37   23.18   13.50
    1280 1024   23150.57    27.10   61.32   36.23   21.07
    1536 1024   33210.73    39.51   87.76   52.16   30.29
    1792 1024   46534.59    55.80  119.28   71.01   41.20
    2048 1024   57364.81    73.40  155.25   92.51   53.67
     256 1280    1163.76     1.45    3.57    1.89    1.10
     512 1280    4837.75     5.53   13.13    7.38    4.25
     768 1280   10968.10    12.06   28.92   16.39    9.51
    1024 1280   19735.37    21.85   50.89   28.96   16.84
    1280 1280   28220.46    33.84   79.25   45.26   26.29
    1536 1280   41801.96    49.42  113.64   65.15   37.81
    1792 1280   55415.96    69.80  154.76   88.65   51.46
    2048 1280   76233.73    92.00  201.18  115.62   67.02
     256 1536    1428.17     1.74    4.17    2.26    1.31
     512 1536    5736.67     6.60   15.65    8.83    5.09
     768 1536   13212.48    14.43   34.58   19.71   11.39
    1024 1536   23434.73    25.78   60.89   34.75   20.18
    1280 1536   34221.90    40.60   94.98   54.20   31.50
    1536 1536   51352.42    59.22  136.64   78.32   45.39
    1792 1536   68297.47    83.67  186.36  106.51   61.87
    2048 1536   90034.48   110.26  242.94  138.73   80.59
     256 1792    1628.94     2.03    4.91    2.66    1.54
     512 1792    6342.23     7.73   18.20   10.29    5.93
     768 1792   15239.15    16.91   40.28   22.97   13.26
    1024 1792   25812.23    30.10   71.00   40.53   23.50
    1280 1792   41581.11    47.32  110.77   63.29   36.71
    1536 1792   57629.16    69.16  160.30   91.38   52.94
    1792 1792   79357.90    97.83  219.40  124.17   72.58
    2048 1792  109135.67   128.65  283.80  161.83   94.11
     256 2048    1891.69     2.32    5.56    3.02    1.76
     512 2048    7566.14     8.85   20.72   11.78    6.77
     768 2048   17221.18    19.23   45.98   26.24   15.14
    1024 2048   29527.40    34.49   81.19   46.34   26.84
    1280 2048   44846.67    54.15  126.46   72.33   41.93
    1536 2048   70018.11    79.18  183.81  104.50   60.79
    1792 2048  100843.57   111.56  250.53  142.41   83.46
    2048 2048  131486.43   147.29  325.06  185.08  106.82
""",
}

# crowd — Viguera, Orduña, Lozano, Cecilia, García, "Improving the GPU-based Collision Check Procedure
# for Distributed Crowd Simulations". The paper gives its times only as plots (Figs. 8-11); Section 6
# states the execution time at one million agents (100 random moves each) relative to the sort-based
# Baseline. Tesla C870 (16 SMs): texture memory -50%, shared memory (tiled) -70%, the new sort-free
# static grid -85% (no atomics on that card). Tesla C1060 (30 SMs): shared memory -53%, static grid
# with atomics -65%, static grid without atomics "around" -75%.
SEED_CROWD_1M = [
    # (card, [(algorithm, warpmind counterpart, time relative to the Baseline)])
    ("Tesla C870", [("Baseline (sort)", "gpu-sort", 1.0), ("texture memory", None, 0.50),
                    ("shared memory (tiled)", "gpu-tiled", 0.30),
                    ("static grid, no atomics", "gpu-static-grid", 0.15)]),
    ("Tesla C1060", [("Baseline (sort)", "gpu-sort", 1.0), ("shared memory (tiled)", "gpu-tiled", 0.47),
                     ("static grid, atomics", None, 0.35),
                     ("static grid, no atomics", "gpu-static-grid", 0.25)]),
]

# aoi — Sung, "Using GPU as Co-processor in MMOG Server-side Computing" (MSc thesis, 2007), Chapter 4:
# average time of one server tick in ms, one command per client, on an Intel Core 2 Duo E6300 (the CPU
# baseline is single-threaded) and an NVIDIA GeForce 8800 GTX (Tables 4-1, 4-2). Rows: clients.
# Tables 4-5 (map 2500x2500) and 4-6 (map 5000x5000): CPU and GPU, the GPU time with the upload of the
# commands and the download of the updates; Tables 4-9 and 4-10: the GPU time without the transfers
# ("computation only": bucket sort + logic). None: "INVALID" in the thesis (out of GPU memory).
SEED_AOI_HW = "8800 GTX / Core 2 Duo E6300, 1 thread"
SEED_AOI_CLIENTS = [512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288]
SEED_AOI = {
    # (map, aoi): {"cpu": Table 4-5/4-6 CPU, "gpu": Table 4-5/4-6 GPU, "gpu_compute": Table 4-9/4-10 GPU}
    (2500, 10): {
        "cpu": [2.303, 4.624, 9.259, 18.711, 37.954, 77.139, 160.524, 346.258, 787.703, 1917.623, 4982.445],
        "gpu": [9.299, 10.529, 12.255, 14.296, 19.628, 34.020, 78.416, 226.567, 769.591, 2903.820, 11562.311],
        "gpu_compute": [9.189, 10.319, 11.821, 13.126, 16.112, 21.570, 33.607, 59.629, 115.858, 241.282,
                        550.882],
    },
    (2500, 20): {
        "cpu": [5.425, 10.869, 21.804, 43.871, 89.346, 184.965, 393.089, 872.226, 2020.357, 5015.093, None],
        "gpu": [9.348, 10.602, 12.828, 16.082, 26.174, 59.245, 180.017, 655.178, 2593.582, 10695.969, None],
        "gpu_compute": [9.209, 10.296, 11.980, 13.271, 16.100, 22.135, 34.549, 62.369, 127.571, 326.096, None],
    },
    (5000, 10): {
        "cpu": [2.551, 5.094, 10.177, 20.408, 40.924, 82.299, 166.343, 339.565, 706.888, 1520.068, 3421.073],
        "gpu": [9.271, 10.450, 12.429, 14.028, 17.781, 26.537, 48.732, 112.016, 307.877, 963.912, 3374.011],
        "gpu_compute": [9.167, 10.285, 12.120, 13.310, 16.051, 21.584, 33.409, 58.235, 110.369, 223.584,
                        475.944],
    },
    (5000, 20): {
        "cpu": [5.872, 11.717, 23.392, 47.006, 94.659, 190.806, 388.601, 804.078, 1707.657, 3780.537, 8741.187],
        "gpu": [9.299, 10.503, 12.335, 14.405, 19.602, 33.853, 78.061, 226.177, 766.990, 2897.588, 11540.627],
        "gpu_compute": [9.191, 9.191, 11.889, 13.234, 16.006, 21.628, 33.684, 59.650, 114.769, 241.614,
                        550.768],
    },
}
# Table 4-8 "Detailed Execution Time of GPU Algorithm at Each Step" (map 2500x2500, AOI 10x10), ms:
# upload of the commands, bucket sorting, logic processing (the game logic with the conflict merge and
# the range query), download of the updates.
SEED_AOI_STAGES = {
    "upload": [0.025, 0.033, 0.046, 0.070, 0.128, 0.235, 0.387, 0.688, 1.323, 2.556, 5.053],
    "sort": [5.198, 5.291, 5.480, 5.933, 6.885, 8.770, 12.845, 21.738, 39.133, 72.936, 137.026],
    "logic": [3.991, 5.028, 6.341, 7.193, 9.228, 12.801, 20.762, 37.891, 76.725, 168.346, 413.857],
    "download": [0.085, 0.177, 0.388, 1.099, 3.388, 12.215, 44.422, 166.249, 652.409, 2659.982, 11006.376],
}

# ddm — Lo, Chung, Pai, "Offloading Region Matching of Data Distribution Management with CUDA",
# Section IV. The paper gives its times and speed-ups only as plots (Figs. 5-12); its remarks state
# the speed-up of region matching on a GeForce 9600 GT over its quad-core 2.4 GHz CPU, 2,048 .. 32,768
# regions on 10000x10000, sides 10 and 100: uniform (Remark 1, Figs. 5-6) REGION up to 200x, GRID up
# to 150x; three hot spots (Remark 4, Figs. 9-10) REGION about 25x, GRID about 5x.
SEED_DDM_HW = "9600 GT over a quad-core CPU"
SEED_DDM_SPEEDUP = {
    "uniform": [("gpu-region", 200.0, "up to 200x (Remark 1)"), ("gpu-grid", 150.0, "up to 150x (Remark 1)")],
    "hotspot": [("gpu-region", 25.0, "about 25x (Remark 4)"), ("gpu-grid", 5.0, "about 5x (Remark 4)")],
}

# chess / connect6 / hybrid — Li, Liu, Wang, Liu, Li, "A Parallel Algorithm for Game Tree Search Using
# GPGPU", Section 6, on two Xeon E5620 and a Tesla C2050. Section 6.2 (Figs. 5-6): the largest speed-up
# of the batch leaf and branch calculations on the GPU over the serial CPU code. Sections 6.3, 6.4: the
# largest speed-up of the whole search over the serial search, without pruning (Connect6 w=48 d=4 at
# Lmax=Bmax=10750; chess d=5 at 7680) and with pruning (Connect6 d=5 at 7424; chess d=6 at 7680).
# Table 3: nodes computed with pruning, N_GPU (N_hybrid) against N_serial.
SEED_SEARCH_HW = "Tesla C2050 over one Xeon E5620 thread"
SEED_BATCH_MAX = {"connect6": {"leaf": 97.0, "branch": 37.0}, "chess": {"leaf": 23.0, "branch": 29.0}}
SEED_SEARCH_MAX = {"connect6": {False: 89.95, True: 10.58}, "chess": {False: 11.43, True: 7.26}}
SEED_NODES = {"connect6": (24503857, 2653180), "chess": (5104063, 3694481)}  # Table 3: N_GPU, N_serial

# ---------------------------------------------------------------------------------------------------
# Drawing helpers
# ---------------------------------------------------------------------------------------------------

STYLE = {  # variant -> (colour, marker)
    "cpu-naive": ("#8c564b", "v"), "cpu-stamp": ("#1f77b4", "s"), "gpu-naive": ("#ff7f0e", "^"),
    "gpu-coalesced": ("#bcbd22", "D"), "gpu-shared": ("#2ca02c", "P"), "gpu-binned": ("#d62728", "o"),
    "cpu-reference": ("#1f77b4", "s"), "gpu-sort": ("#ff7f0e", "^"), "gpu-tiled": ("#2ca02c", "P"),
    "gpu-static-grid": ("#d62728", "o"),
    "cpu-fast": ("#1f77b4", "s"), "cpu-grid": ("#8c564b", "v"), "gpu-seed": ("#ff7f0e", "^"),
    "gpu-fast": ("#d62728", "o"),
    "cpu-sort": ("#1f77b4", "s"), "cpu-brute": ("#8c564b", "v"), "gpu-region": ("#ff7f0e", "^"),
    "gpu-grid": ("#d62728", "o"),
    "cpu-1-thread": ("#8c564b", "v"), "cpu-pool": ("#1f77b4", "s"), "gpu": ("#d62728", "o"),
    "perft-cpu": ("#1f77b4", "s"), "perft-gpu": ("#d62728", "o"),
    "hybrid-cpu-pool": ("#1f77b4", "s"), "hybrid-gpu": ("#d62728", "o"), "hybrid-cpu": ("#1f77b4", "s"),
}
EXTRA_COLOURS = ["#9467bd", "#e377c2", "#17becf", "#7f7f7f", "#aec7e8", "#ffbb78"]
SEED_COLOUR = "#7f7f7f"
FLOOR_STYLE = dict(color="black", ls="--", lw=1.2)


def style(variant, order):
    if variant in STYLE:
        return STYLE[variant]
    return EXTRA_COLOURS[order.index(variant) % len(EXTRA_COLOURS)] if variant in order else "#7f7f7f", "o"


def ordered_variants(records):
    """Variants in the order of their first appearance (the order the suite runs them in)."""
    seen = []
    for r in records:
        if r["variant"] not in seen:
            seen.append(r["variant"])
    return seen


def check_summary(records):
    n = len(records)
    bad = sum(1 for r in records if not r.get("checked", False))
    against = sorted({r["checked_against"] for r in records if r.get("checked") and r.get("checked_against")})
    ref = f" against {', '.join(against)}" if against else ""
    if bad == 0:
        return f"all {n} records checked{ref}"
    return f"{bad} of {n} records NOT checked (hollow markers)"


def fmt_count(v):
    """1,024 / 10k / 1M / 2²⁰: counts as the suites choose them (round thousands or powers of two)."""
    v = float(v)
    if v >= 1e6 and v % 1e5 == 0:
        return f"{v / 1e6:g}M"
    if v >= 1e4 and v % 1e3 == 0:
        return f"{v / 1e3:g}k"
    if v >= 1 << 20 and int(v) & (int(v) - 1) == 0:
        return "2" + str(int(v).bit_length() - 1).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))
    return f"{int(v):,}" if v == int(v) else f"{v:g}"


def fmt_ratio(v):
    return f"{v:.0f}×" if v >= 9.95 else f"{v:.1f}×" if v >= 0.995 else f"{v:.2f}×"


def set_ticks(ax, values, fmt=fmt_count, axis="x", keep=None):
    """Major ticks at the given data values (every one, or those in `keep`), labelled with fmt."""
    values = sorted(set(values))
    shown = [v for v in values if keep is None or v in keep]
    a = ax.xaxis if axis == "x" else ax.yaxis
    a.set_ticks(shown)
    a.set_ticklabels([fmt(v) for v in shown])
    a.set_minor_locator(matplotlib.ticker.FixedLocator([v for v in values if v not in shown]))
    a.set_minor_formatter(matplotlib.ticker.NullFormatter())


def ratio_axis(ax):
    """Plain numbers (0.5, 2, 30, 100) on a logarithmic ratio axis, minor labels included where shown."""
    plain = matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}")
    ax.yaxis.set_major_formatter(plain)
    ax.yaxis.set_minor_formatter(matplotlib.ticker.LogFormatter(labelOnlyBase=False, minor_thresholds=(1, 0.5)))


def thin_powers(values, limit=7):
    """A readable subset of tick values: powers of two (or of ten) first, at most `limit` of them."""
    values = sorted(set(values))
    if len(values) <= limit:
        return set(values)
    pick = [v for v in values if int(v) == v and int(v) & (int(v) - 1) == 0]
    if len(pick) < 2:
        pick = values
    while len(pick) > limit:
        pick = pick[::2]
    return set(pick)


class Figure:
    """One PNG: a grid of panels, a title naming the suite, device and commit, and hollow markers for
    unchecked records."""

    def __init__(self, name, data, title, nrows=1, ncols=1, size=(10, 6), legend_lines=0, **kw):
        """legend_lines > 0: a strip of that many legend rows under the panels, for one legend shared by all
        panels (see shared_legend)."""
        self.name = name
        self.data = data
        self.fig = plt.figure(figsize=size, layout="constrained")
        self.bottom = None
        top = self.fig
        if legend_lines:
            strip = 0.2 * legend_lines + 0.25
            top, self.bottom = self.fig.subfigures(2, 1, height_ratios=[size[1] - strip, strip])
        self.axes = top.subplots(nrows, ncols, squeeze=False, **kw)
        self.unchecked = False
        self.shared = {}  # label -> handle, for shared_legend
        subtitle = f"{data['device']} · commit {data['commit']} · {check_summary(data['records'])}"
        self.fig.suptitle(f"{title}\n{subtitle}", fontsize=11)

    def ax(self, i=0, j=0):
        return self.axes[i][j]

    def series(self, ax, pts, label, color, marker="o", ls="-", lw=1.6, ms=5, zorder=3):
        """pts: (x, y, checked). Draws the line and the markers (hollow where not checked); returns a legend
        handle, or None when nothing was drawn."""
        pts = sorted((x, y, c) for x, y, c in pts if y is not None and y > 0 and x is not None)
        if not pts:
            return None
        ax.plot([p[0] for p in pts], [p[1] for p in pts], ls=ls, color=color, lw=lw, zorder=zorder)
        ok = [p for p in pts if p[2]]
        bad = [p for p in pts if not p[2]]
        if ok:
            ax.plot([p[0] for p in ok], [p[1] for p in ok], ls="none", marker=marker, ms=ms, color=color,
                    zorder=zorder + 1)
        if bad:
            self.unchecked = True
            ax.plot([p[0] for p in bad], [p[1] for p in bad], ls="none", marker=marker, ms=ms + 1.5,
                    markerfacecolor="white", markeredgecolor=color, markeredgewidth=1.6, zorder=zorder + 2)
        return Line2D([], [], color=color, ls=ls, lw=lw, marker=marker, ms=ms, label=label)

    def seed(self, ax, xs, ys, label, color=SEED_COLOUR, ls="--", marker="x", lw=1.3):
        pts = [(x, y) for x, y in zip(xs, ys) if y is not None and y > 0]
        if not pts:
            return None
        ax.plot([p[0] for p in pts], [p[1] for p in pts], ls=ls, color=color, lw=lw, marker=marker, ms=5,
                alpha=0.85, zorder=2)
        return Line2D([], [], color=color, ls=ls, lw=lw, marker=marker, ms=5, label=label)

    def floor(self, ax, pts, label="floor"):
        pts = sorted((x, y) for x, y in pts if y is not None and y > 0)
        if not pts:
            return None
        ax.plot([p[0] for p in pts], [p[1] for p in pts], zorder=2, **FLOOR_STYLE)
        return Line2D([], [], label=label, **FLOOR_STYLE)

    def legend(self, ax, handles, loc="best", ncol=1, title=None, below=False):
        """below: under the panel (constrained layout makes room), for legends that would hide lines."""
        handles = [h for h in handles if h is not None]
        if self.unchecked:
            handles.append(Line2D([], [], ls="none", marker="o", markerfacecolor="white", markeredgecolor="black",
                                  markeredgewidth=1.6, ms=6.5, label="hollow: output NOT checked"))
        if not handles:
            return None
        if below:
            return ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=ncol, title=title)
        return ax.legend(handles=handles, loc=loc, ncol=ncol, title=title)

    def collect(self, handles):
        """Keeps the handles (by label, first wins) for shared_legend."""
        for h in handles:
            if h is not None and h.get_label() not in self.shared:
                self.shared[h.get_label()] = h

    def shared_legend(self, ncol=4):
        handles = list(self.shared.values())
        if self.unchecked:
            handles.append(Line2D([], [], ls="none", marker="o", markerfacecolor="white", markeredgecolor="black",
                                  markeredgewidth=1.6, ms=6.5, label="hollow: output NOT checked"))
        if handles:
            self.bottom.legend(handles=handles, loc="center", ncol=ncol, frameon=False)

    def save(self, out):
        path = os.path.join(out, f"bench-{self.name}.png")
        self.fig.savefig(path, dpi=DPI, metadata={"Software": None})
        plt.close(self.fig)
        print(path)
        return path


def load(path):
    with open(path) as f:
        return json.load(f)


def median(values):
    v = sorted(values)
    return v[len(v) // 2] if v else None


# ---------------------------------------------------------------------------------------------------
# field
# ---------------------------------------------------------------------------------------------------


def seed_field():
    """radius -> (resolution, entities) -> variant -> ms, from the thesis's Appendix A."""
    out = {}
    for radius, text in SEED_FIELD_TABLES.items():
        table = {}
        for line in text.strip().splitlines():
            f = line.split()
            table[(int(f[0]), int(f[1]))] = {v: float(x) for v, x in zip(SEED_FIELD_COLUMNS, f[2:])}
        out[radius] = table
    return out


def field_figures(d, out):
    idx = defaultdict(dict)  # (radius, resolution, entities) -> variant -> record (the seed's 256 world)
    scale = {}
    for r in d["records"]:
        p = r["params"]
        if p.get("case") == "scale":
            scale[r["variant"]] = r
        else:
            idx[(float(p["radius"]), int(p["resolution"]), int(p["entities"]))][r["variant"]] = r
    if not idx:
        print("field: no grid records, nothing to draw")
        return
    variants = ordered_variants(d["records"])
    radii = sorted({k[0] for k in idx}, reverse=True)
    res_all = sorted({k[1] for k in idx})
    counts_all = sorted({k[2] for k in idx})
    n_big, res_big = counts_all[-1], res_all[-1]
    seed = seed_field()

    def cases(radius, by):  # [(x, case key)] along one axis of the grid
        if by == "cells":
            return [(res, (radius, res, n_big)) for res in res_all if (radius, res, n_big) in idx]
        return [(n, (radius, res_big, n)) for n in counts_all if (radius, res_big, n) in idx]

    def axis_labels(ax, by, radius):
        if by == "cells":
            ax.set_xscale("log", base=2)
            set_ticks(ax, res_all, lambda v: f"{int(v)}²", keep=thin_powers(res_all, 4))
            ax.set_xlabel("field cells (side²)")
            ax.set_title(f"radius {radius:g}, {n_big} entities")
        else:
            ax.set_xscale("log", base=2)
            set_ticks(ax, counts_all, keep=thin_powers(counts_all))
            ax.set_xlabel("entities")
            ax.set_title(f"radius {radius:g}, {res_big}² cells")
        ax.set_yscale("log")
        ax.set_ylabel("build time (ms, median)")

    rows = ["cells", "entities"]
    # 1. Time against problem size, per variant, with the floor.
    f = Figure("field-time", d, "field: build time of one 256×256-world field (Elmir's grid), per variant",
               len(rows), len(radii), size=(5.2 * len(radii) + 1, 9.4), legend_lines=1, sharey="row")
    for i, by in enumerate(rows):
        for j, radius in enumerate(radii):
            ax = f.ax(i, j)
            handles = []
            for v in variants:
                color, marker = style(v, variants)
                pts = [(x, idx[k][v]["median_ms"], idx[k][v]["checked"]) for x, k in cases(radius, by) if v in idx[k]]
                handles.append(f.series(ax, pts, v, color, marker))
            handles.append(f.floor(ax, [(x, next((r["floor_ms"] for r in idx[k].values() if r.get("floor_ms")), None))
                                        for x, k in cases(radius, by)]))
            axis_labels(ax, by, radius)
            f.collect(handles)
    f.shared_legend(ncol=8)
    f.save(out)

    # 2. gpu-binned's speed-up over cpu-stamp, every case of the grid.
    if any("gpu-binned" in v and "cpu-stamp" in v for v in idx.values()):
        f = Figure("field-speedup", d, "field: gpu-binned's speed-up over multi-threaded cpu-stamp (median ms ratio)",
                   1, len(radii), size=(5.2 * len(radii) + 1.2, 6.6))
        vals = [v["cpu-stamp"]["median_ms"] / v["gpu-binned"]["median_ms"] for v in idx.values()
                if "gpu-binned" in v and "cpu-stamp" in v]
        norm = LogNorm(vmin=min(vals), vmax=max(vals))
        image = None
        for j, radius in enumerate(radii):
            ax = f.ax(0, j)
            ax.grid(False)
            mat = [[float("nan")] * len(res_all) for _ in counts_all]
            for a, n in enumerate(counts_all):
                for b, res in enumerate(res_all):
                    v = idx.get((radius, res, n), {})
                    if "gpu-binned" in v and "cpu-stamp" in v:
                        s = v["cpu-stamp"]["median_ms"] / v["gpu-binned"]["median_ms"]
                        mat[a][b] = s
                        checked = v["cpu-stamp"]["checked"] and v["gpu-binned"]["checked"]
                        dark = norm(s) < 0.55
                        ax.text(b, a, fmt_ratio(s) + ("" if checked else "?"), ha="center", va="center", fontsize=7.5,
                                color="white" if dark else "black")
                        if not checked:
                            f.unchecked = True
                            ax.add_patch(Rectangle((b - 0.5, a - 0.5), 1, 1, fill=False, hatch="///",
                                                   edgecolor="black", lw=0))
            image = ax.imshow(mat, norm=norm, cmap="viridis", origin="lower", aspect="auto")
            ax.set_xticks(range(len(res_all)))
            ax.set_xticklabels([f"{r}²" for r in res_all], rotation=45)
            ax.set_yticks(range(len(counts_all)))
            ax.set_yticklabels([str(n) for n in counts_all])
            ax.set_xlabel("field cells (side²)")
            ax.set_ylabel("entities")
            ax.set_title(f"radius {radius:g}")
        bar = f.fig.colorbar(image, ax=f.axes.ravel().tolist(), label="speed-up (×)", shrink=0.9)
        bar.ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}×"))
        bar.ax.yaxis.set_minor_formatter(matplotlib.ticker.FuncFormatter(
            lambda v, _: f"{v:g}×" if f"{v:g}"[0] in "25" else ""))
        if "gpu-binned" in scale and "cpu-stamp" in scale:
            p = scale["gpu-binned"]["params"]
            s = scale["cpu-stamp"]["median_ms"] / scale["gpu-binned"]["median_ms"]
            f.ax(0, 0).annotate(f"scale case ({p['resolution']}², {p['entities']:,} entities, radius {p['radius']:g}, "
                                f"{p['world']:g}-unit world): {fmt_ratio(s)}", (0, -0.22), xycoords="axes fraction",
                                fontsize=8)
        if f.unchecked:
            f.ax(0, len(radii) - 1).annotate("hatched, '?': not checked", (0, -0.22), xycoords="axes fraction",
                                             fontsize=8)
        f.save(out)

    # 3. Beside the seed: the same cases as Appendix A, warpmind solid, the thesis dashed.
    shared_radii = [r for r in radii if int(r) in seed]
    if not shared_radii:
        return
    f = Figure("field-seed", d, f"field: warpmind (solid) beside Elmir 2013, Appendix A (dashed, x; {SEED_FIELD_HW})",
               len(rows), len(shared_radii), size=(5.2 * len(shared_radii) + 1, 9.8), legend_lines=2, sharey="row")
    for i, by in enumerate(rows):
        for j, radius in enumerate(shared_radii):
            ax = f.ax(i, j)
            table = seed[int(radius)]
            handles = []
            for v in variants:
                color, marker = style(v, variants)
                pts = [(x, idx[k][v]["median_ms"], idx[k][v]["checked"]) for x, k in cases(radius, by) if v in idx[k]]
                handles.append(f.series(ax, pts, v, color, marker))
            for v, name in zip(SEED_FIELD_COLUMNS, SEED_FIELD_NAMES):
                xs = [x for x, k in cases(radius, by) if (k[1], k[2]) in table]
                ys = [table[(k[1], k[2])][v] for x, k in cases(radius, by) if (k[1], k[2]) in table]
                handles.append(f.seed(ax, xs, ys, f"seed {name}", color=style(v, variants)[0]))
            axis_labels(ax, by, radius)
            ax.set_title(ax.get_title() + f" — seed: {SEED_FIELD_SOURCE[int(radius)]}")
            f.collect(handles)
    f.shared_legend(ncol=6)
    f.save(out)

    # 4. Speed-up of each variant over the thesis's counterpart, over every case both have.
    pairs = [(v, SEED_FIELD_COLUMNS[k], SEED_FIELD_NAMES[k]) for k, v in enumerate(SEED_FIELD_COLUMNS)]
    pairs.append(("gpu-binned", "gpu-shared", "GPU Shared"))  # the thesis's fastest variant
    pairs = [p for p in pairs if p[0] in variants]
    if not pairs:
        return
    f = Figure("field-seed-speedup", d, "field: speed-up over the thesis's numbers for the same case "
               f"(seed ms ÷ warpmind ms; seed: {SEED_FIELD_HW})", 1, 1, size=(12, 6.2))
    ax = f.ax()
    radius_colours = {15.0: "#1f77b4", 8.0: "#ff7f0e", 4.0: "#2ca02c"}
    width = 0.8 / len(shared_radii)
    handles = []
    for j, radius in enumerate(shared_radii):
        table = seed[int(radius)]
        colour = radius_colours.get(radius, EXTRA_COLOURS[j % len(EXTRA_COLOURS)])
        for i, (v, sv, _) in enumerate(pairs):
            ratios, bad = [], []
            for (rad, res, n), vv in idx.items():
                if rad == radius and v in vv and (res, n) in table:
                    s = table[(res, n)][sv] / vv[v]["median_ms"]
                    ratios.append(s)
                    if not vv[v]["checked"]:
                        bad.append(s)
            if not ratios:
                continue
            x = i + (j - (len(shared_radii) - 1) / 2) * width
            ax.boxplot([ratios], positions=[x], widths=width * 0.85, patch_artist=True, showfliers=True,
                       boxprops=dict(facecolor=colour, alpha=0.55, edgecolor=colour),
                       medianprops=dict(color="black"), whiskerprops=dict(color=colour), capprops=dict(color=colour),
                       flierprops=dict(marker=".", markeredgecolor=colour, ms=4))
            if bad:
                f.unchecked = True
                ax.plot([x] * len(bad), bad, ls="none", marker="o", markerfacecolor="white", markeredgecolor="red",
                        markeredgewidth=1.5)
            m = median(ratios)
            ax.annotate(fmt_ratio(m), (x, max(ratios)), textcoords="offset points", xytext=(0, 4), ha="center",
                        fontsize=7)
        handles.append(Patch(facecolor=colour, alpha=0.55, label=f"radius {radius:g} ({SEED_FIELD_SOURCE[int(radius)]})"))
    ax.axhline(1, color="black", lw=0.8)
    ax.set_yscale("log")
    ax.set_xticks(range(len(pairs)))
    ax.set_xticklabels([f"{v}\nvs seed {name}" + ("\n(all host threads vs 1)" if v.startswith("cpu") else "")
                        for v, _, name in pairs])
    ax.set_ylabel("speed-up over the seed (×, per case; label: median)")
    ratio_axis(ax)
    ax.set_xlabel(f"{len(res_all)} resolutions {res_all[0]}²..{res_all[-1]}² × {len(counts_all)} entity counts "
                  f"{counts_all[0]}..{counts_all[-1]} per radius (cpu-naive only where it ran)")
    f.legend(ax, handles, loc="upper left")
    f.save(out)


# ---------------------------------------------------------------------------------------------------
# crowd
# ---------------------------------------------------------------------------------------------------


def crowd_figures(d, out):
    recs = d["records"]
    rules = sorted({r["params"].get("rule", "") for r in recs})
    rule = "strict" if "strict" in rules else rules[0]
    recs = [r for r in recs if r["params"].get("rule", "") == rule]
    idx = defaultdict(dict)
    for r in recs:
        idx[int(r["params"]["agents"])][r["variant"]] = r
    agents = sorted(idx)
    variants = ordered_variants(recs)
    p0 = recs[0]["params"]
    setup = f"radius {p0['radius']:g}, lattice pitch {p0['spacing']:g}·2R, step ≤ {p0['step']:g} per axis, rule {rule}"

    def x_axis(ax):
        ax.set_xscale("log")
        set_ticks(ax, agents, keep=thin_powers(agents, 10) if len(agents) > 10 else None)
        ax.set_xlabel("agents")

    # 1. Time per tick against agents.
    f = Figure("crowd-time", d, f"crowd: time of one collision-checked tick, per variant ({setup})", size=(10, 6.4))
    ax = f.ax()
    handles = []
    for v in variants:
        color, marker = style(v, variants)
        handles.append(f.series(ax, [(n, idx[n][v]["median_ms"], idx[n][v]["checked"]) for n in agents if v in idx[n]],
                                v, color, marker))
        tr = [(n, idx[n][v].get("with_transfers_ms"), idx[n][v]["checked"]) for n in agents if v in idx[n]]
        handles.append(f.series(ax, tr, f"{v}, with transfers", color, marker, ls=":", lw=1.2, ms=4))
    handles.append(f.floor(ax, [(n, next((r["floor_ms"] for r in idx[n].values() if r.get("floor_ms")), None))
                                for n in agents], "floor (the tick's minimum bytes at copy bandwidth)"))
    x_axis(ax)
    ax.set_yscale("log")
    ax.set_ylabel("ms per tick (median; GPU: device time, proposals on the device)")
    f.legend(ax, handles, loc="upper left")
    f.save(out)

    # 2. Throughput (the seed's Figs. 10-11: collision checks per second) and speed-up over the CPU.
    f = Figure("crowd-rate", d, f"crowd: collision checks per second and speed-up over cpu-reference ({setup})",
               1, 2, size=(13, 5.6))
    handles = []
    for v in variants:
        color, marker = style(v, variants)
        pts = []
        for n in agents:
            r = idx[n].get(v)
            if r:
                pts.append((n, r.get("checks_per_s") or n / (r["median_ms"] * 1e-3), r["checked"]))
        handles.append(f.series(f.ax(0, 0), pts, v, color, marker))
    x_axis(f.ax(0, 0))
    f.ax(0, 0).set_yscale("log")
    f.ax(0, 0).set_ylabel("agents checked per second")
    f.ax(0, 0).set_title("throughput (as the seed's Figs. 10-11)")
    f.legend(f.ax(0, 0), handles, loc="upper left")
    handles = []
    ref = variants[0]
    for v in variants[1:]:
        color, marker = style(v, variants)
        pts = [(n, idx[n][ref]["median_ms"] / idx[n][v]["median_ms"], idx[n][v]["checked"] and idx[n][ref]["checked"])
               for n in agents if v in idx[n] and ref in idx[n]]
        handles.append(f.series(f.ax(0, 1), pts, f"{v} over {ref}", color, marker))
    x_axis(f.ax(0, 1))
    f.ax(0, 1).set_yscale("log")
    f.ax(0, 1).set_ylabel("speed-up (×)")
    ratio_axis(f.ax(0, 1))
    f.ax(0, 1).set_title(f"speed-up over {ref} (all host threads)")
    f.legend(f.ax(0, 1), handles, loc="upper left")
    f.save(out)

    # 3. Against the seed: time relative to the sort-based baseline, at one million agents.
    if "gpu-sort" not in variants or 1000000 not in idx or "gpu-sort" not in idx[1000000]:
        return
    f = Figure("crowd-seed", d, "crowd: time relative to the sort-based baseline — warpmind beside Viguera et al. "
               "(Section 6, 1M agents)", 1, 2, size=(14, 5.8), gridspec_kw=dict(width_ratios=[1.2, 1]))
    ax = f.ax(0, 0)
    ax.grid(axis="y", visible=False)
    ours = ["gpu-sort", "gpu-tiled", "gpu-static-grid"]
    groups = [(f"seed, {card}", [(a, cp, rel, None) for a, cp, rel in rows]) for card, rows in SEED_CROWD_1M]
    base = idx[1000000]["gpu-sort"]["median_ms"]
    groups.append((f"warpmind, {d['device']}",
                   [(v, v, idx[1000000][v]["median_ms"] / base, idx[1000000][v]["checked"]) for v in ours
                    if v in idx[1000000]]))
    extra = {"texture memory": "#ffbb78", "static grid, atomics": "#e377c2"}
    y = 0
    ticks, labels = [], []
    for gname, rows in groups:
        for algo, cp, rel, checked in rows:
            colour = style(cp, variants)[0] if cp else extra.get(algo, SEED_COLOUR)
            seed_bar = gname.startswith("seed")
            ax.barh(y, rel, height=0.75, color="white" if checked is False or seed_bar else colour,
                    edgecolor=colour, hatch="///" if seed_bar else None, lw=1.5)
            if checked is False:
                f.unchecked = True
            ax.annotate(f"{rel:.2f}", (rel, y), textcoords="offset points", xytext=(4, 0), va="center", fontsize=8)
            ticks.append(y)
            labels.append(f"{gname}: {algo}")
            y -= 1
        y -= 0.6
    ax.set_yticks(ticks)
    ax.set_yticklabels(labels)
    ax.set_xlim(0, 1.25)
    ax.set_xlabel("time ÷ time of the sort-based baseline, 1M agents")
    ax.set_title("hatched: the seed's reductions at 1M agents (Section 6); solid: warpmind")
    ax = f.ax(0, 1)
    handles = []
    for v in ("gpu-tiled", "gpu-static-grid"):
        if v not in variants:
            continue
        color, marker = style(v, variants)
        pts = [(n, idx[n][v]["median_ms"] / idx[n]["gpu-sort"]["median_ms"], idx[n][v]["checked"]) for n in agents
               if v in idx[n] and "gpu-sort" in idx[n]]
        handles.append(f.series(ax, pts, f"warpmind {v} ÷ gpu-sort", color, marker))
    seed_markers = {"Tesla C870": "^", "Tesla C1060": "v"}
    for card, rows in SEED_CROWD_1M:
        for algo, cp, rel in rows:
            if cp in ("gpu-tiled", "gpu-static-grid"):
                ax.plot([1000000], [rel], ls="none", marker=seed_markers[card], ms=9, color=style(cp, variants)[0],
                        markeredgecolor="black")
    for card, m in seed_markers.items():
        handles.append(Line2D([], [], ls="none", marker=m, ms=9, color="#bbbbbb", markeredgecolor="black",
                              label=f"seed at 1M agents, {card} (colour: counterpart)"))
    ax.axhline(1, color="black", lw=0.8)
    x_axis(ax)
    ax.set_ylim(0, max(1.25, ax.get_ylim()[1]) * 1.45)  # the legend goes above the lines
    ax.set_ylabel("time ÷ gpu-sort time")
    ax.set_title("warpmind against agents; the seed's ratios at 1M agents")
    f.legend(ax, handles, loc="upper left")
    f.save(out)


# ---------------------------------------------------------------------------------------------------
# aoi
# ---------------------------------------------------------------------------------------------------


def aoi_figures(d, out):
    recs = d["records"]
    formats = sorted({r["params"].get("format", "records") for r in recs})
    fmt = "records" if "records" in formats else formats[0]
    recs = [r for r in recs if r["params"].get("format", "records") == fmt]
    variants = ordered_variants(recs)
    idx = defaultdict(lambda: defaultdict(dict))  # (map, aoi) -> clients -> variant -> record
    for r in recs:
        p = r["params"]
        idx[(float(p["map"]), float(p["aoi"]))][int(p["clients"])][r["variant"]] = r
    panels = sorted(idx)
    ncols = 2 if len(panels) > 1 else 1
    nrows = (len(panels) + ncols - 1) // ncols
    clients_all = sorted({n for pk in panels for n in idx[pk]} | set(SEED_AOI_CLIENTS))

    def x_axis(ax):
        ax.set_xscale("log", base=2)
        set_ticks(ax, clients_all, keep=thin_powers(clients_all, 7))
        ax.set_xlabel("clients")

    # 1. Tick time against clients per (map, AOI), with the thesis's CPU and GPU times.
    f = Figure("aoi-time", d, f"aoi: one server tick (logic, conflict merge, range query), per variant — "
               f"notifications as {fmt}", nrows, ncols, size=(6.3 * ncols, 4.8 * nrows + 1.6), legend_lines=2,
               sharey=True)
    for i, pk in enumerate(panels):
        ax = f.ax(i // ncols, i % ncols)
        rows = idx[pk]
        handles = []
        for v in variants:
            color, marker = style(v, variants)
            handles.append(f.series(ax, [(n, rows[n][v]["median_ms"], rows[n][v]["checked"]) for n in rows if v in rows[n]],
                                    v, color, marker))
        handles.append(f.floor(ax, [(n, next((r["floor_ms"] for r in rows[n].values() if r.get("floor_ms")), None))
                                    for n in rows], "floor (notification list written once)"))
        s = SEED_AOI.get((int(pk[0]), int(pk[1])))
        if s:
            handles.append(f.seed(ax, SEED_AOI_CLIENTS, s["cpu"], "seed CPU (Tables 4-5/4-6)", color=SEED_COLOUR))
            handles.append(f.seed(ax, SEED_AOI_CLIENTS, s["gpu"], "seed GPU with transfers (Tables 4-5/4-6)",
                                  color="#9467bd", ls=":"))
            handles.append(f.seed(ax, SEED_AOI_CLIENTS, s["gpu_compute"], "seed GPU without transfers (4-9/4-10)",
                                  color="#9467bd", ls="--"))
        x_axis(ax)
        ax.set_yscale("log")
        ax.set_ylabel("ms per tick (median)")
        ax.set_title(f"map {pk[0]:g}², AOI {pk[1]:g}" + (f" — seed: {SEED_AOI_HW}" if s else ""))
        f.collect(handles)
    f.shared_legend(ncol=4)
    for i in range(len(panels), nrows * ncols):
        f.ax(i // ncols, i % ncols).set_visible(False)
    f.save(out)

    # 2. The tick's stages as in the thesis's Table 4-8 (map 2500², AOI 10), one panel per GPU variant
    #    (the CPU variants where the file has no GPU rows).
    pk = (2500.0, 10.0) if (2500.0, 10.0) in idx else panels[0]
    rows = idx[pk]
    shown = [v for v in variants if any(rows[n].get(v, {}).get("backend") == "cuda" for n in rows)] or variants
    stages = [("upload_ms", "upload", "#17becf"), ("sort_ms", "sort", "#ff7f0e"), ("logic_ms", "logic", "#2ca02c"),
              ("query_ms", "range query", "#d62728"), ("download_ms", "download", "#9467bd"),
              ("download_floor_ms", "download floor (link bandwidth)", "black")]
    seed_stages = [("upload", "upload", "#17becf"), ("sort", "bucket sorting", "#ff7f0e"),
                   ("logic", "logic processing (incl. range query)", "#2ca02c"), ("download", "download", "#9467bd")]
    f = Figure("aoi-stages", d, f"aoi: the tick's stages, map {pk[0]:g}², AOI {pk[1]:g} (as the thesis's Table 4-8)",
               1, len(shown), size=(6.3 * len(shown) + 1, 6.6), legend_lines=2, sharey=True)
    for j, v in enumerate(shown):
        ax = f.ax(0, j)
        handles = []
        for key, label, colour in stages:
            pts = [(n, rows[n][v].get(key), rows[n][v]["checked"]) for n in rows if v in rows[n]]
            handles.append(f.series(ax, pts, label, colour, "o", ls="-" if key != "download_floor_ms" else "-.",
                                    lw=1.4, ms=4))
        if pk == (2500.0, 10.0):
            for key, label, colour in seed_stages:
                handles.append(f.seed(ax, SEED_AOI_CLIENTS, SEED_AOI_STAGES[key], f"seed {label}", color=colour))
        x_axis(ax)
        ax.set_yscale("log")
        ax.set_ylabel("ms per tick (median)")
        ax.set_title(f"{v}" + (f" — seed (dashed, x): Table 4-8, {SEED_AOI_HW.split(' / ')[0]}"
                               if pk == (2500.0, 10.0) else ""))
        f.collect(handles)
    f.shared_legend(ncol=4)
    f.save(out)


# ---------------------------------------------------------------------------------------------------
# ddm
# ---------------------------------------------------------------------------------------------------


def ddm_figures(d, out):
    recs = d["records"]
    variants = ordered_variants(recs)
    fixed = defaultdict(lambda: defaultdict(dict))  # (distribution, side) -> regions -> variant -> record
    sweep = defaultdict(lambda: defaultdict(dict))  # alpha -> regions -> variant -> record
    for r in recs:
        p = r["params"]
        if float(p.get("alpha", 0)) > 0:
            sweep[float(p["alpha"])][int(p["regions"])][r["variant"]] = r
        else:
            fixed[(p["distribution"], float(p["side"]))][int(p["regions"])][r["variant"]] = r

    def match(r):
        return r.get("match_ms", r["median_ms"])

    def x_axis(ax, values):
        ax.set_xscale("log", base=2)
        set_ticks(ax, values, keep=thin_powers(values, 7))
        ax.set_xlabel("regions (half publications, half subscriptions)")

    def time_panels(name, title, groups, panel_title):
        keys = sorted(groups, key=lambda k: (k[0] != "uniform", k[1]) if isinstance(k, tuple) else k)
        ncols = 2 if len(keys) > 1 else 1
        nrows = (len(keys) + ncols - 1) // ncols
        f = Figure(name, d, title, nrows, ncols, size=(6.3 * ncols, 4.8 * nrows + 1.4), legend_lines=1, sharey=True)
        for i, k in enumerate(keys):
            ax = f.ax(i // ncols, i % ncols)
            rows = groups[k]
            handles = []
            for v in variants:
                color, marker = style(v, variants)
                handles.append(f.series(ax, [(n, match(rows[n][v]), rows[n][v]["checked"]) for n in rows if v in rows[n]],
                                        v, color, marker))
            handles.append(f.floor(ax, [(n, next((r["floor_ms"] for r in rows[n].values() if r.get("floor_ms")), None))
                                        for n in rows], "floor (boxes read, pairs written once)"))
            x_axis(ax, list(rows))
            ax.set_yscale("log")
            ax.set_ylabel("ms per full match (GPU: device time)")
            ax.set_title(panel_title(k, rows))
            f.collect(handles)
        f.shared_legend(ncol=5)
        for i in range(len(keys), nrows * ncols):
            f.ax(i // ncols, i % ncols).set_visible(False)
        f.save(out)

    def side_title(k, rows):
        pairs = [r.get("pairs") for n in sorted(rows) for r in rows[n].values()][-1:]
        return f"{k[0]}, side {k[1]:g}" + (f" ({pairs[0]:,} pairs at {max(rows):,})" if pairs and pairs[0] else "")

    if fixed:
        # 1. Match time against regions (Lo et al.'s grid).
        time_panels("ddm-time", "ddm: matching every publication against every subscription, per variant "
                    "(10000² space, Lo et al.'s grid)", fixed, side_title)
        # 2. Speed-up over cpu-brute, with the paper's published speed-ups of its GPU over its CPU.
        keys = sorted(fixed, key=lambda k: (k[0] != "uniform", k[1]))
        ref = "cpu-brute" if "cpu-brute" in variants else variants[0]
        ncols = 2 if len(keys) > 1 else 1
        nrows = (len(keys) + ncols - 1) // ncols
        f = Figure("ddm-speedup", d, f"ddm: speed-up over {ref} (full match) beside Lo et al.'s published speed-ups "
                   f"(dotted; {SEED_DDM_HW})", nrows, ncols, size=(6.3 * ncols, 4.8 * nrows + 1.6), legend_lines=2,
                   sharey=True)
        for i, k in enumerate(keys):
            ax = f.ax(i // ncols, i % ncols)
            rows = fixed[k]
            handles = []
            for v in variants:
                if v == ref:
                    continue
                color, marker = style(v, variants)
                pts = [(n, match(rows[n][ref]) / match(rows[n][v]), rows[n][v]["checked"] and rows[n][ref]["checked"])
                       for n in rows if v in rows[n] and ref in rows[n]]
                handles.append(f.series(ax, pts, f"{v} over {ref}", color, marker))
            for v, value, note in SEED_DDM_SPEEDUP.get(k[0], []):
                colour = style(v, variants)[0]
                ax.axhline(value, color=colour, ls=":", lw=1.5)
                handles.append(Line2D([], [], color=colour, ls=":", lw=1.5, label=f"seed {v}: {note}"))
            ax.axhline(1, color="black", lw=0.8)
            x_axis(ax, list(rows))
            ax.set_yscale("log")
            ax.set_ylabel("speed-up (×)")
            ratio_axis(ax)
            ax.set_title(f"{k[0]}, side {k[1]:g}")
            f.collect(handles)
        f.shared_legend(ncol=3)
        for i in range(len(keys), nrows * ncols):
            f.ax(i // ncols, i % ncols).set_visible(False)
        f.save(out)
    if sweep:
        # 3. The alpha sweep (overlap degree) up to a million regions.
        time_panels("ddm-alpha", "ddm: overlap-degree sweep (side from alpha), match time per variant", sweep,
                    lambda k, rows: f"alpha {k:g}")


# ---------------------------------------------------------------------------------------------------
# chess, connect6 (search suites) and hybrid (node counts)
# ---------------------------------------------------------------------------------------------------

HYBRID_MODES = {  # (first_child_first, cut_one_by_one) -> (label, line style)
    (False, 1): ("plain (the paper's Algorithm 2)", "-"),
    (True, 1): ("first child first", "--"),
    (True, 2): ("first child first, CUT nodes: 2 children one by one", "-."),
}


def hybrid_mode(first_child_first, cut):
    if (first_child_first, cut) in HYBRID_MODES:
        return HYBRID_MODES[(first_child_first, cut)]
    if first_child_first and cut >= 1 << 20:
        return "CUT nodes one by one", ":"
    return f"first child first={first_child_first}, CUT {cut}", (0, (1, 2, 4, 2))


def batch_ticks(ax, values):
    ax.set_xscale("log", base=2)
    set_ticks(ax, values, lambda v: "2²⁰" if v == 1 << 20 else fmt_count(v), keep=thin_powers(values, 8))


def search_figures(d, out, game):
    recs = d["records"]
    pretty = "Connect6" if game == "connect6" else "chess"
    # 1. Perft: nodes per second, CPU pool against GPU.
    perft = [r for r in recs if r["params"].get("experiment") == "perft"]
    if perft:
        cases = []
        for r in perft:
            c = (r["params"]["position"], r["params"]["depth"])
            if c not in cases:
                cases.append(c)
        variants = ordered_variants(perft)
        f = Figure(f"{game}-perft", d, f"{game}: perft nodes per second (node counts checked against the published ones)",
                   size=(4 + 2.2 * len(cases) * len(variants), 5.6))
        ax = f.ax()
        width = 0.8 / len(variants)
        for j, v in enumerate(variants):
            colour = style(v, variants)[0]
            for i, c in enumerate(cases):
                r = next((r for r in perft if r["variant"] == v and (r["params"]["position"], r["params"]["depth"]) == c),
                         None)
                if not r:
                    continue
                nps = r.get("nodes_per_s") or r["nodes"] / (r["median_ms"] * 1e-3)
                x = i + (j - (len(variants) - 1) / 2) * width
                ax.bar(x, nps, width=width * 0.9, color=colour if r["checked"] else "white", edgecolor=colour, lw=1.5)
                if not r["checked"]:
                    f.unchecked = True
                rate = f"{nps / 1e9:.2f} G nodes/s" if nps >= 1e9 else f"{nps / 1e6:.1f} M nodes/s"
                ax.annotate(f"{rate}\n{r['median_ms']:.1f} ms", (x, nps), textcoords="offset points",
                            xytext=(0, 3), ha="center", fontsize=8)
        ax.set_xticks(range(len(cases)))
        ax.set_xticklabels([f"{p}, depth {dep}\n({next(r['nodes'] for r in perft if r['params']['position'] == p):,} nodes)"
                            for p, dep in cases])
        ax.set_yscale("log")
        ax.set_ylabel("nodes per second")
        ax.grid(axis="x", visible=False)
        ax.margins(y=0.25)
        f.legend(ax, [Patch(facecolor=style(v, variants)[0], label=v) for v in variants], loc="upper left")
        f.save(out)

    # 2. Leaf and branch batches: time and speed-up over one CPU thread (the paper's Figs. 5-6).
    batch = [r for r in recs if r["params"].get("experiment") in ("leaf", "branch")]
    if batch:
        variants = ordered_variants(batch)
        ref = "cpu-1-thread" if "cpu-1-thread" in variants else variants[0]
        kinds = [k for k in ("leaf", "branch") if any(r["params"]["experiment"] == k for r in batch)]
        f = Figure(f"{game}-batch", d, f"{game}: batches of leaf (evaluation) and branch (ordered legal moves) "
                   "calculations on random-game positions, best of 3", 2, len(kinds), size=(6.5 * len(kinds), 9.5))
        for j, kind in enumerate(kinds):
            rows = defaultdict(dict)
            for r in batch:
                if r["params"]["experiment"] == kind:
                    rows[int(r["params"]["batch"])][r["variant"]] = r
            sizes = sorted(rows)
            ax = f.ax(0, j)
            handles = []
            for v in variants:
                color, marker = style(v, variants)
                handles.append(f.series(ax, [(n, rows[n][v]["median_ms"], rows[n][v]["checked"]) for n in sizes
                                             if v in rows[n]], v, color, marker))
            batch_ticks(ax, sizes)
            ax.set_yscale("log")
            ax.set_ylabel("ms per batch (GPU: transfers included)")
            ax.set_xlabel("positions per batch")
            ax.set_title(f"{kind} calculation: time")
            f.legend(ax, handles, loc="upper left")
            ax = f.ax(1, j)
            handles = []
            for v in variants:
                if v == ref:
                    continue
                color, marker = style(v, variants)
                handles.append(f.series(ax, [(n, rows[n][ref]["median_ms"] / rows[n][v]["median_ms"],
                                              rows[n][v]["checked"]) for n in sizes if v in rows[n] and ref in rows[n]],
                                        f"{v} over {ref}", color, marker))
            seed = SEED_BATCH_MAX.get(game, {}).get(kind)
            if seed:
                ax.axhline(seed, color=SEED_COLOUR, ls="--", lw=1.4)
                handles.append(Line2D([], [], color=SEED_COLOUR, ls="--", lw=1.4,
                                      label=f"seed: up to {seed:g}× ({pretty}, Fig. {5 if game == 'connect6' else 6}; "
                                            f"{SEED_SEARCH_HW})"))
            ax.axhline(1, color="black", lw=0.8)
            batch_ticks(ax, sizes)
            ax.set_yscale("log")
            ax.set_ylabel("speed-up (×)")
            ratio_axis(ax)
            ax.set_xlabel("positions per batch")
            ax.set_title(f"{kind} calculation: speed-up over {ref} (as the paper's Figs. 5-6)")
            f.legend(ax, handles, loc="upper left")
        f.save(out)

    # 3. The whole search: speed-up over the serial search and N_hybrid / N_serial against Lmax = Bmax.
    # The hybrid rows (by batch limit); the device-resident and engine rows have no Lmax and are in the tables.
    search = [r for r in recs if r["params"].get("experiment") == "search" and "l_max" in r["params"]]
    if search:
        variants = ordered_variants(search)
        modes = []
        for r in search:
            p = r["params"]
            m = (bool(p["pruning"]), bool(p.get("cut_nodes_one_by_one", False)), int(p["depth"]))
            if m not in modes:
                modes.append(m)

        def mode_label(m):
            return (f"depth {m[2]}, " + ("no pruning" if not m[0] else "pruning, CUT nodes one by one" if m[1]
                                         else "pruning (Algorithm 2)"))

        mode_ls = ["-", "--", ":", "-."]
        position = search[0]["params"]["position"]
        f = Figure(f"{game}-search", d, f"{game}: the whole hybrid search from '{position}' against a serial search "
                   "over the same ordered moves", 1, 2, size=(14, 7.2))
        ax = f.ax(0, 0)
        handles = []
        for mi, m in enumerate(modes):
            for v in variants:
                color, marker = style(v, variants)
                pts = []
                for r in search:
                    p = r["params"]
                    if r["variant"] == v and (bool(p["pruning"]), bool(p.get("cut_nodes_one_by_one", False)),
                                              int(p["depth"])) == m and r["median_ms"] > 0:
                        pts.append((int(p["l_max"]), r["serial_ms"] / r["median_ms"], r["checked"]))
                handles.append(f.series(ax, pts, f"{v}, {mode_label(m)}", color, marker, ls=mode_ls[mi % 4]))
        for pruning, value in sorted(SEED_SEARCH_MAX.get(game, {}).items()):
            seed_style = dict(color=SEED_COLOUR, ls="--" if pruning else "-", lw=2.5, alpha=0.55)
            ax.axhline(value, **seed_style)
            handles.append(Line2D([], [], label=f"seed max, {'pruning' if pruning else 'no pruning'}: {value:g}×",
                                  **seed_style))
        ax.axhline(1, color="black", lw=0.8)
        batch_ticks(ax, [int(r["params"]["l_max"]) for r in search])
        ax.set_yscale("log")
        ax.set_xlabel("Lmax = Bmax")
        ax.set_ylabel("speed-up over the serial search (×)")
        ratio_axis(ax)
        ax.set_title(f"time (seed: {SEED_SEARCH_HW}, Figs. 11-14)")
        f.legend(ax, handles, ncol=2, below=True)
        ax = f.ax(0, 1)
        handles = []
        v0 = variants[0]
        for mi, m in enumerate(modes):
            pts = []
            for r in search:
                p = r["params"]
                if r["variant"] == v0 and (bool(p["pruning"]), bool(p.get("cut_nodes_one_by_one", False)),
                                           int(p["depth"])) == m:
                    pts.append((int(p["l_max"]), r["n_hybrid"] / r["n_serial"], r["checked"]))
            color, marker = style(v0, variants)
            handles.append(f.series(ax, pts, mode_label(m), "#444444", marker, ls=mode_ls[mi % 4]))
        if game in SEED_NODES:
            hyb, ser = SEED_NODES[game]
            ax.axhline(hyb / ser, color=SEED_COLOUR, ls="--", lw=2.5, alpha=0.55)
            handles.append(Line2D([], [], color=SEED_COLOUR, ls="--", lw=2.5, alpha=0.55,
                                  label=f"seed, pruning: {hyb:,} / {ser:,} = {hyb / ser:.2f}× (Table 3)"))
        ax.axhline(1, color="black", lw=0.8)
        batch_ticks(ax, [int(r["params"]["l_max"]) for r in search])
        ax.set_yscale("log")
        ax.set_xlabel("Lmax = Bmax")
        ax.set_ylabel("N_hybrid / N_serial (nodes computed)")
        ratio_axis(ax)
        ax.set_title("the pruning loss (the GPU computes the same nodes)")
        f.legend(ax, handles, ncol=1, below=True)
        f.save(out)


def hybrid_figure(d, out, stem):
    recs = d["records"]
    games = [g for g in ("connect6", "chess") if any(r["params"]["game"] == g for r in recs)]
    games += sorted({r["params"]["game"] for r in recs} - set(games))
    f = Figure(f"{stem}-ratio", d, f"hybrid ({stem}.json): nodes computed with pruning, N_hybrid / N_serial, as the batch "
               "limits grow (b_max = l_max / 4)", 1, len(games), size=(7.5 * len(games), 7.4), sharey=True)
    position_colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
    markers = ["o", "s", "^", "D"]
    for j, game in enumerate(games):
        ax = f.ax(0, j)
        rows = [r for r in recs if r["params"]["game"] == game]
        positions = []
        for r in rows:
            if r["params"]["position"] not in positions:
                positions.append(r["params"]["position"])
        groups = defaultdict(list)
        for r in rows:
            p = r["params"]
            groups[(p["position"], bool(p["first_child_first"]), int(p["cut_one_by_one"]))].append(r)
        handles, mode_handles = [], {}
        for (pos, fcf, cut), rs in sorted(groups.items(), key=lambda kv: (positions.index(kv[0][0]), kv[0][1], kv[0][2])):
            label, ls = hybrid_mode(fcf, cut)
            k = positions.index(pos)
            pts = [(int(r["params"]["l_max"]), r["n_hybrid"] / r["n_serial"], r["checked"]) for r in rs]
            f.series(ax, pts, pos, position_colours[k % 4], markers[k % 4], ls=ls, lw=1.4, ms=4.5)
            mode_handles.setdefault(label, Line2D([], [], color="#444444", ls=ls, lw=1.4, label=label))
        for k, pos in enumerate(positions):
            r0 = next(r for r in rows if r["params"]["position"] == pos)
            handles.append(Line2D([], [], color=position_colours[k % 4], marker=markers[k % 4], ms=4.5, lw=1.4,
                                  label=f"{pos}: depth {r0['params']['depth']}, N_serial {r0['n_serial']:,}"))
        handles += list(mode_handles.values())
        if game in SEED_NODES:
            hyb, ser = SEED_NODES[game]
            ax.axhline(hyb / ser, color=SEED_COLOUR, ls="--", lw=2.5, alpha=0.6)
            handles.append(Line2D([], [], color=SEED_COLOUR, ls="--", lw=2.5, alpha=0.6,
                                  label=f"seed: {hyb:,} / {ser:,} = {hyb / ser:.2f}× (Table 3, pruning)"))
        ax.axhline(1, color="black", lw=0.8)
        batch_ticks(ax, [int(r["params"]["l_max"]) for r in rows])
        ax.set_yscale("log")
        ax.set_xlabel("l_max (leaf batch limit; 2²⁰: unlimited)")
        ax.set_ylabel("N_hybrid / N_serial")
        ratio_axis(ax)
        ax.set_title(game)
        f.legend(ax, handles, ncol=2, below=True)
    f.save(out)


# ---------------------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--results", default="bench/results", help="results folder (default bench/results)")
    ap.add_argument("--out", default="docs/images", help="where the PNGs go (default docs/images)")
    ap.add_argument("--device", default="h100", help="device folder under --results (default h100)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    folder = os.path.join(a.results, a.device)
    drawers = {
        "field": field_figures, "crowd": crowd_figures, "aoi": aoi_figures, "ddm": ddm_figures,
        "chess": lambda d, out: search_figures(d, out, "chess"),
        "connect6": lambda d, out: search_figures(d, out, "connect6"),
    }
    for suite, draw in drawers.items():
        path = os.path.join(folder, f"{suite}.json")
        if not os.path.exists(path):
            print(f"skip {suite}: no {path}")
            continue
        draw(load(path), a.out)
    hybrids = sorted(glob.glob(os.path.join(folder, "hybrid*.json")))
    if not hybrids:
        hybrids = sorted(glob.glob(os.path.join(a.results, "cpu", "hybrid*.json")))
    if not hybrids:
        print(f"skip hybrid: no {os.path.join(folder, 'hybrid*.json')} or {os.path.join(a.results, 'cpu', 'hybrid*.json')}")
    for path in hybrids:
        stem = os.path.splitext(os.path.basename(path))[0]
        hybrid_figure(load(path), a.out, stem)
    return 0


if __name__ == "__main__":
    sys.exit(main())
