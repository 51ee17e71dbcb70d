// warpmind-bots' address lists (bots_addresses.h).
#include "bots_addresses.h"

#include <arpa/inet.h>

#include <cstdint>
#include <cstdlib>

namespace warpmind::bots {

std::string parse_servers(const std::string& list, std::vector<ENetAddress>& servers) {
  for (std::size_t from = 0; from <= list.size();) {
    std::size_t to = list.find(',', from);
    if (to == std::string::npos) to = list.size();
    const std::string one = list.substr(from, to - from);
    from = to + 1;
    const std::size_t colon = one.rfind(':');
    if (colon == std::string::npos) return "--server: expected HOST:PORT, got '" + one + "'";
    const std::string host_name = one.substr(0, colon);
    char* end = nullptr;
    const long port = std::strtol(one.c_str() + colon + 1, &end, 10);
    if (*end != '\0' || port < 1 || port > 65535) return "--server: bad port in '" + one + "'";
    ENetAddress address;
    if (enet_address_set_host(&address, host_name.c_str()) != 0) return "--server: unknown host '" + host_name + "'";
    address.port = static_cast<enet_uint16>(port);
    servers.push_back(address);
  }
  return {};
}

std::string parse_bind(const std::string& list, std::vector<enet_uint32>& locals) {
  for (std::size_t from = 0; from <= list.size();) {
    std::size_t to = list.find(',', from);
    if (to == std::string::npos) to = list.size();
    const std::string one = list.substr(from, to - from);
    from = to + 1;
    const std::size_t slash = one.find('/');
    const std::string host_name = one.substr(0, slash);
    in_addr a{};
    if (inet_pton(AF_INET, host_name.c_str(), &a) != 1) return "expected an IPv4 address, got '" + one + "'";
    long prefix = 32;
    if (slash != std::string::npos) {
      char* end = nullptr;
      prefix = std::strtol(one.c_str() + slash + 1, &end, 10);
      if (*end != '\0' || end == one.c_str() + slash + 1 || prefix < 16 || prefix > 32)
        return "the prefix of '" + one + "' must be 16 to 32";
    }
    const std::uint32_t size = std::uint32_t{1} << (32 - prefix), first = ntohl(a.s_addr) & ~(size - 1);
    const std::uint32_t skip = prefix <= 30 ? 1 : 0;
    for (std::uint32_t k = skip; k < size - skip; ++k) locals.push_back(htonl(first + k));
  }
  return {};
}

}  // namespace warpmind::bots
