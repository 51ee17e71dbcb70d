// warpmind-server's UDP sockets (sockets.h).
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>

#include "sockets.h"

#include "enet_send.h"

namespace warpmind::server {

std::string Sockets::open(const std::string& host, int port, int sockets, int socket_buffer, int max_clients,
                          enet_uint16& bound_port) {
  if (enet_initialize() != 0) return "cannot initialise ENet";
  ENetAddress address;
  if (enet_address_set_host_ip(&address, host.c_str()) != 0) return "--host: not an IPv4 address: " + host;
  address.port = static_cast<enet_uint16>(port);
  // One socket (an ENet host of up to 4,095 connections), or --sockets of them on one port: each made
  // unbound, marked SO_REUSEPORT and bound, the first to --port (0: any), the others to the port it got;
  // the kernel then hands each client's datagrams to one of them, always the same one.
  const std::size_t peers = std::min<std::size_t>(static_cast<std::size_t>(max_clients) + 64, 4095);
  ENetAddress bound{};
  for (int k = 0; k < sockets; ++k) {
    ENetHost* h = enet_host_create(sockets == 1 ? &address : nullptr, peers, net::kChannels, 0, 0);
    if (h == nullptr) return "cannot listen on " + host + ":" + std::to_string(address.port);
    hosts_.push_back(h);
    if (sockets > 1) {
      const int on = 1;
      if (setsockopt(h->socket, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on) != 0 ||
          enet_socket_bind(h->socket, &address) != 0)
        return "cannot listen on " + host + ":" + std::to_string(address.port) + " (socket " + std::to_string(k) +
               " of --sockets " + std::to_string(sockets) + ")";
      h->address = address;
    }
    // The largest packet sent or received (ENet applies it both ways): a State of up to ~32,000
    // notifications, a Snapshot of 4,000 players. A client's messages are far smaller (kMaxClientPacket).
    h->maximumPacketSize = 256 * 1024;
    // A tick's commands arrive in a burst (clients send on their own tick): a socket buffer that holds
    // them all, past the system's default cap where allowed (SO_RCVBUFFORCE needs CAP_NET_ADMIN).
    for (const int opt : {SO_RCVBUF, SO_SNDBUF}) {
      const int want = socket_buffer, force = opt == SO_RCVBUF ? SO_RCVBUFFORCE : SO_SNDBUFFORCE;
      if (setsockopt(h->socket, SOL_SOCKET, force, &want, sizeof want) != 0)
        setsockopt(h->socket, SOL_SOCKET, opt, &want, sizeof want);
    }
    h->maximumWaitingData = 64 * 1024;  // per peer, packets received and not yet handed out
    if (k == 0) {
      enet_socket_get_address(h->socket, &bound);
      address.port = bound.port;
    }
  }
  connects_by_socket_.assign(hosts_.size(), 0);
  int rcvbuf = 0;
  socklen_t rcvlen = sizeof rcvbuf;
  getsockopt(hosts_[0]->socket, SOL_SOCKET, SO_RCVBUF, &rcvbuf, &rcvlen);
  socket_buffer_ = rcvbuf;
  bound_port = bound.port;
  return {};
}

void Sockets::close() {
  for_each_peer([](std::size_t, std::size_t, ENetPeer* p) {
    if (p->data) {
      delete static_cast<Conn*>(p->data);
      p->data = nullptr;
    }
    if (p->state == ENET_PEER_STATE_CONNECTED) enet_peer_disconnect_now(p, 0);
  });
  flush();
  for (ENetHost* h : hosts_) enet_host_destroy(h);
  hosts_.clear();
  enet_deinitialize();
}

void Sockets::send(ENetPeer* p, std::uint8_t channel, const std::uint8_t* data, std::size_t size, bool seal) {
  Conn* c = static_cast<Conn*>(p->data);
  const std::size_t bytes = net::send_packet(p, channel, data, size, seal && c != nullptr ? &c->keys : nullptr);
  if (bytes == 0) return void(++counts_.send_failures);
  ++counts_.packets_out;
  counts_.bytes_out += bytes;
}

bool Sockets::pump(int wait_ms, const std::function<void(ENetEvent&)>& handle) {
  if (hosts_.size() > 1 && wait_ms > 0) {  // one wait for all the sockets, then each serviced without one
    pollfd fds[8];
    for (std::size_t k = 0; k < hosts_.size(); ++k) fds[k] = {hosts_[k]->socket, POLLIN, 0};
    poll(fds, hosts_.size(), wait_ms);
    wait_ms = 0;
  }
  bool any = false;
  for (ENetHost* h : hosts_) {
    ENetEvent ev;
    const int r = enet_host_service(h, &ev, static_cast<enet_uint32>(wait_ms));
    if (r < 0) {  // a socket error (a datagram larger than ENet's buffer, say): nothing to handle
      ++counts_.receive_errors;
      any = true;
      continue;
    }
    if (r == 0) continue;
    any = true;
    do handle(ev);
    while (enet_host_check_events(h, &ev) > 0);
  }
  return any;
}

}  // namespace warpmind::server
