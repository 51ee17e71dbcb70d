// warpmind-bots' address lists: the servers the bots connect to and the local addresses they bind.
#pragma once

#include <enet/enet.h>

#include <string>
#include <vector>

namespace warpmind::bots {

// HOST:PORT[,HOST:PORT...]: bot i connects to the (i mod count)-th (the zones of a cluster). Empty
// string or what is wrong with the list.
std::string parse_servers(const std::string& list, std::vector<ENetAddress>& servers);

// --bind ADDR[/PREFIX][,...]: the local IPv4 addresses the bots' sockets are bound to, bot i to the (i mod
// count)-th, a block ADDR/PREFIX (16 <= PREFIX <= 32) standing for its addresses in order (without the
// block's first and last where PREFIX <= 30: its network and broadcast addresses). Hosts in network byte
// order, as ENet keeps them; empty string or what is wrong with the list.
std::string parse_bind(const std::string& list, std::vector<enet_uint32>& locals);

}  // namespace warpmind::bots
