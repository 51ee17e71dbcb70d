// warpmind-server's metrics: the summary's counters in the Prometheus text format (the page the
// endpoint of metrics_endpoint.h serves at --metrics-port), and the summary printed on stop.
#include <cstdio>

#include "server.h"

namespace warpmind::server {

std::string Server::metrics_text() {
  const Sessions::Counts& n = sessions.counts();
  std::string t;
  const auto metric = [&t](const char* name, const char* type, const char* help, const std::string& samples) {
    t += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n" + samples;
  };
  // A metric of one sample, without labels.
  const auto single = [&metric](const char* name, const char* type, const char* help, double v) {
    char b[160];
    std::snprintf(b, sizeof b, "%s %.17g\n", name, v);
    metric(name, type, help, b);
  };
  single("warpmind_server_ticks_total", "counter", "Ticks run.", tick - 1);
  single("warpmind_server_late_ticks_total", "counter", "Times the schedule skipped ahead.", times.late());
  single("warpmind_server_clients", "gauge", "Players joined now.", sessions.active_count());
  single("warpmind_server_joins_total", "counter", "Joins accepted.", n.joined);
  single("warpmind_server_leaves_total", "counter", "Players that left.", n.left);
  single("warpmind_server_refused_total", "counter", "Joins refused.", n.refused);
  single("warpmind_server_address_refused_total", "counter",
         "Hellos and Observes refused because their address held its cap of players or observers.", n.address_refused);
  single("warpmind_server_idle_total", "counter", "Players whose clients went quiet for --idle-seconds.",
         limits.counts().idle_players);
  single("warpmind_server_half_open_reset_total", "counter", "Handshakes reset: too old, or too many from one address.",
         limits.counts().half_open_reset);
  single("warpmind_server_unjoined_dropped_total", "counter",
         "Connections dropped while peers were short: too many from one address that never joined.",
         limits.counts().unjoined_dropped);
  std::size_t open_connections = 0;
  sockets.for_each_peer([&](std::size_t, std::size_t, const ENetPeer* p) {
    open_connections += p->state != ENET_PEER_STATE_DISCONNECTED;
  });
  single("warpmind_server_connections", "gauge", "ENet connections open now (handshakes and closings included).",
         static_cast<double>(open_connections));
  single("warpmind_server_detached_total", "counter", "Players kept in the game after their connection was lost.",
         n.detached);
  single("warpmind_server_resumed_total", "counter", "Sessions taken back by a Hello with their token.", n.resumed);
  single("warpmind_server_resume_failed_total", "counter", "Resumes asked for of sessions not there (a new one given).",
         n.resume_failed);
  single("warpmind_server_expired_total", "counter", "Detached players that left after --resume-seconds.", n.expired);
  single("warpmind_server_superseded_total", "counter",
         "Connections dropped for a new one from their address and port.", n.superseded);
  metric("warpmind_server_connections_sealed_total", "counter", "Connections whose keys were agreed, by cipher.",
         "warpmind_server_connections_sealed_total{cipher=\"chacha20-poly1305\"} " + std::to_string(n.ciphers[0]) +
             "\nwarpmind_server_connections_sealed_total{cipher=\"aes-256-gcm\"} " + std::to_string(n.ciphers[1]) +
             "\n");
  std::string d;
  for (int k = 0; k < kDrops; ++k)
    d += "warpmind_server_drops_total{reason=\"" + std::string(drop_name(k)) + "\"} " + std::to_string(n.drops[k]) +
         "\n";
  metric("warpmind_server_drops_total", "counter", "Packets and datagrams dropped, by reason.", d);
  single("warpmind_server_commands_total", "counter", "Commands accepted into a tick.", n.commands);
  single("warpmind_server_notifications_total", "counter", "Notifications sent.", outbox.notifications());
  single("warpmind_server_datagrams_in_total", "counter", "UDP datagrams received.", limits.counts().datagrams_in);
  single("warpmind_server_bytes_in_total", "counter", "Message bytes received.", sockets.counts().bytes_in);
  single("warpmind_server_bytes_out_total", "counter", "Message bytes sent.", sockets.counts().bytes_out);
  // The last 1,000 ticks' times.
  const std::vector<float> recent = times.tick().recent();
  std::string q;
  for (double p : {0.5, 0.9, 0.99}) {
    const double v = percentile(recent, p);
    char b[160];
    std::snprintf(b, sizeof b, "warpmind_server_tick_seconds{quantile=\"%g\"} %.9g\n", p, v / 1000.0);
    q += b;
  }
  metric("warpmind_server_tick_seconds", "summary", "Time of a tick over the last 1000 ticks.", q);
  return t;
}

// The summary on stop: one line of JSON (--json) or a few lines of text, on stdout.
void Server::print_summary(double seconds, std::uint32_t connected) const {
  const Sessions::Counts& n = sessions.counts();
  std::uint64_t dropped = 0;
  for (std::uint64_t d : n.drops) dropped += d;
  if (f.json) {
    std::string drop_list, by_socket;
    for (std::size_t k = 0; k < sockets.connects_by_socket().size(); ++k)
      by_socket += (k ? "," : "") + std::to_string(sockets.connects_by_socket()[k]);
    for (int d = 0; d < kDrops; ++d)
      drop_list += std::string(d ? "," : "") + "\"" + drop_name(d) + "\":" + std::to_string(n.drops[d]);
    std::printf(
        "{\"program\":\"warpmind-server\",\"ticks\":%llu,\"seconds\":%.3f,\"tick_hz\":%d,\"late_ticks\":%llu,"
        "\"clients\":{\"joined\":%llu,\"left\":%llu,\"disconnected\":%llu,\"refused\":%llu,\"slow\":%llu,\"peak\":%llu,"
        "\"connected_at_stop\":%u,\"idle\":%llu,\"half_open_reset\":%llu,\"unjoined_dropped\":%llu,\"detached\":%llu,"
        "\"resumed\":%llu,"
        "\"resume_failed\":%llu,\"expired\":%llu,\"superseded\":%llu,\"sealed_chacha20_poly1305\":%llu,"
        "\"sealed_aes_256_gcm\":%llu},\"drops\":{%s},\"dropped\":%llu,\"receive_"
        "errors\":%llu,\"commands\":%llu,"
        "\"rejected_by_aoi\":%llu,"
        "\"notifications\":%llu,\"datagrams_in\":%llu,\"datagram_bytes_in\":%llu,\"bytes_in\":%llu,\"packets_out\":%"
        "llu,\"bytes_out\":%llu,"
        "\"tick_ms\":{\"p50\":%.4f,\"p90\":%.4f,\"p99\":%.4f,\"max\":%.4f},\"variant\":\"%s\",\"backend\":\"%s\","
        "\"send_failures\":%llu,\"observers\":%zu,\"observers_refused\":%llu,\"address_refused\":%llu,\"observers_"
        "idle\":%llu,\"connects_by_"
        "socket\":[%s],\"socket_"
        "buffer\":%d,\"zone\":%d,"
        "\"zones\":%d,\"cluster\":{"
        "\"messages_in\":%llu,\"bad_"
        "messages\":%llu,\"late_messages\":%llu,"
        "\"timeouts\":%llu,\"relayed_out\":%llu,\"relayed_in\":%llu,\"resets\":%llu,\"views_missing\":%llu,"
        "\"bad_tags\":%llu,\"too_early\":%llu,\"resent\":%llu,\"resumes_relayed\":%llu,\"stores\":%llu,\"store_"
        "failures\":%llu,\"store_bytes\":%"
        "llu,"
        "\"restored_tick\":%llu,\"restore_ms\":%.3f,"
        "\"wait_ms\":{\"p50\":%.4f,\"p99\":%.4f}}}\n",
        static_cast<unsigned long long>(tick - 1), seconds, f.tick_hz, static_cast<unsigned long long>(times.late()),
        static_cast<unsigned long long>(n.joined), static_cast<unsigned long long>(n.left),
        static_cast<unsigned long long>(n.disconnected), static_cast<unsigned long long>(n.refused),
        static_cast<unsigned long long>(limits.counts().slow_peers), static_cast<unsigned long long>(n.peak), connected,
        static_cast<unsigned long long>(limits.counts().idle_players),
        static_cast<unsigned long long>(limits.counts().half_open_reset),
        static_cast<unsigned long long>(limits.counts().unjoined_dropped), static_cast<unsigned long long>(n.detached),
        static_cast<unsigned long long>(n.resumed), static_cast<unsigned long long>(n.resume_failed),
        static_cast<unsigned long long>(n.expired), static_cast<unsigned long long>(n.superseded),
        static_cast<unsigned long long>(n.ciphers[0]), static_cast<unsigned long long>(n.ciphers[1]), drop_list.c_str(),
        static_cast<unsigned long long>(dropped), static_cast<unsigned long long>(sockets.counts().receive_errors),
        static_cast<unsigned long long>(n.commands), static_cast<unsigned long long>(times.rejected()),
        static_cast<unsigned long long>(outbox.notifications()),
        static_cast<unsigned long long>(limits.counts().datagrams_in),
        static_cast<unsigned long long>(limits.counts().datagram_bytes_in),
        static_cast<unsigned long long>(sockets.counts().bytes_in),
        static_cast<unsigned long long>(sockets.counts().packets_out),
        static_cast<unsigned long long>(sockets.counts().bytes_out), percentile(times.tick().kept(), 0.5),
        percentile(times.tick().kept(), 0.9), percentile(times.tick().kept(), 0.99), times.tick().max(),
        aoi::variant_name(world->variant()), backend_name(ctx->backend()),
        static_cast<unsigned long long>(sockets.counts().send_failures), sessions.observers().size(),
        static_cast<unsigned long long>(n.observers_refused), static_cast<unsigned long long>(n.address_refused),
        static_cast<unsigned long long>(limits.counts().observers_idle), by_socket.c_str(), sockets.socket_buffer(),
        f.zone, f.zones, static_cast<unsigned long long>(zones.counts().messages),
        static_cast<unsigned long long>(zones.counts().bad), static_cast<unsigned long long>(zones.counts().late),
        static_cast<unsigned long long>(zones.counts().timeouts),
        static_cast<unsigned long long>(zones.counts().relayed_out),
        static_cast<unsigned long long>(zones.counts().relayed_in),
        static_cast<unsigned long long>(zones.counts().resets), static_cast<unsigned long long>(outbox.views_missing()),
        static_cast<unsigned long long>(zones.counts().bad_tags),
        static_cast<unsigned long long>(zones.counts().too_early),
        static_cast<unsigned long long>(zones.counts().resent),
        static_cast<unsigned long long>(zones.counts().resumes_relayed),
        static_cast<unsigned long long>(store.counts().stores),
        static_cast<unsigned long long>(store.counts().failures), static_cast<unsigned long long>(store.counts().bytes),
        static_cast<unsigned long long>(store.counts().restored_tick), store.counts().restore_ms,
        percentile(times.wait().kept(), 0.5), percentile(times.wait().kept(), 0.99));
  } else {
    std::printf("warpmind-server: %llu ticks in %.1f s (%llu late), %llu joined, %llu left, peak %llu clients\n",
                static_cast<unsigned long long>(tick - 1), seconds, static_cast<unsigned long long>(times.late()),
                static_cast<unsigned long long>(n.joined), static_cast<unsigned long long>(n.left),
                static_cast<unsigned long long>(n.peak));
    std::printf("dropped %llu:", static_cast<unsigned long long>(dropped));
    for (int d = 0; d < kDrops; ++d) std::printf(" %s %llu", drop_name(d), static_cast<unsigned long long>(n.drops[d]));
    std::printf("\nbytes in %llu, out %llu; tick ms p50 %.3f p99 %.3f\n",
                static_cast<unsigned long long>(sockets.counts().bytes_in),
                static_cast<unsigned long long>(sockets.counts().bytes_out), percentile(times.tick().kept(), 0.5),
                percentile(times.tick().kept(), 0.99));
  }
}

}  // namespace warpmind::server
