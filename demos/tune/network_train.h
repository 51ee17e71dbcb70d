// warpmind-tune --network: trains the learned chess evaluation (search/chess_network.h) on labelled
// positions and writes its file.
#pragma once

#include <string>
#include <vector>

namespace warpmind::demos {

struct NetworkTraining {
  std::vector<std::string> data;  // FEN;score;bestmove;result files
  std::string out;                // the network file to write
  int hidden = 128;
  int epochs = 20;
  int threads = 2;
  int batch = 1024;
  double lambda = 0.5;          // weight of the reference score against the result
  double learning_rate = 1e-3;  // Adam's, decayed to a tenth along a cosine
  double decay = 0;             // AdamW's weight decay
  bool residual = false;        // train a correction of the classical evaluation
  unsigned seed = 1;
  bool json = false;
};

// Returns the process exit code (0: written; 1: the fit failed its check; 2: bad input).
int train_network(const NetworkTraining& t);

}  // namespace warpmind::demos
