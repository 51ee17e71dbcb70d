"""warpmind's trainer of the learned evaluations (train/README.md).

chess_records: the trainer's records that `warpmind-datagen expand` writes; chess_network: the network file
(version 2 of ai/include/warpmind/search/chess_network.h), quantisation and the integer forward pass the
engine computes; chess_model: the PyTorch model and its training loop.
"""
