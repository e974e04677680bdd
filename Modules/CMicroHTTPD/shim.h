#include <sys/types.h>
#include <sys/socket.h>
#include <stdint.h>
#include <stdarg.h>
#include <string.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

// Typed wrappers for libmicrohttpd's variadic start call and closed enums (STYLE.md pitfalls).
/// Starts a daemon on `port` (0 = any free port) bound to the IPv4 address `host` (dotted quad; NULL or an
/// unparsable text = 127.0.0.1), in thread-pool mode with `threads` workers and an internal polling thread.
/// The access handler and completion callback are C pointers.
static inline struct MHD_Daemon *jqc_mhd_start(const char *host, uint16_t port, unsigned int threads,
                                               MHD_AccessHandlerCallback handler, void *handler_context,
                                               MHD_RequestCompletedCallback completed, void *completed_context,
                                               unsigned int connection_timeout_seconds) {
    struct sockaddr_in address;
    memset(&address, 0, sizeof(address));
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    if (host == NULL || inet_pton(AF_INET, host, &address.sin_addr) != 1) {
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    }
    return MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL,
                            port, NULL, NULL, handler, handler_context,
                            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&address,
                            MHD_OPTION_THREAD_POOL_SIZE, threads,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
                            MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
                            MHD_OPTION_END);
}
/// The port the daemon actually listens on (for port 0).
static inline uint16_t jqc_mhd_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}
/// A response whose bytes libmicrohttpd copies (so Swift memory may be freed at once).
static inline struct MHD_Response *jqc_mhd_response_copy(size_t size, const void *bytes) {
    return MHD_create_response_from_buffer(size, (void *)bytes, MHD_RESPMEM_MUST_COPY);
}
/// A request header's value (case-insensitive name), or NULL.
static inline const char *jqc_mhd_header(struct MHD_Connection *connection, const char *name) {
    return MHD_lookup_connection_value(connection, MHD_HEADER_KIND, name);
}
/// A decoded query argument's value, or NULL.
static inline const char *jqc_mhd_query(struct MHD_Connection *connection, const char *name) {
    return MHD_lookup_connection_value(connection, MHD_GET_ARGUMENT_KIND, name);
}
/// 1 when the peer's address is a loopback address (127.0.0.0/8 or ::1), else 0.
static inline int jqc_mhd_client_is_loopback(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) return 0;
    const struct sockaddr *address = info->client_addr;
    if (address->sa_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)address;
        return (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
    }
    if (address->sa_family == AF_INET6) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)address;
        return IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr);
    }
    return 0;
}
/// Queues a copied response with `status` and a Content-Type header; returns 1 on success, 0 on failure.
static inline int jqc_mhd_reply(struct MHD_Connection *connection, unsigned int status, const char *content_type,
                                size_t size, const void *bytes) {
    struct MHD_Response *response = MHD_create_response_from_buffer(size, (void *)bytes, MHD_RESPMEM_MUST_COPY);
    if (response == NULL) return 0;
    if (content_type != NULL) MHD_add_response_header(response, "Content-Type", content_type);
    enum MHD_Result result = MHD_queue_response(connection, status, response);
    MHD_destroy_response(response);
    return result == MHD_YES ? 1 : 0;
}
/// MHD_YES / MHD_NO as the enum the access handler returns.
static inline enum MHD_Result jqc_mhd_yes(void) { return MHD_YES; }
static inline enum MHD_Result jqc_mhd_no(void) { return MHD_NO; }
/// 1 when the request completed normally (MHD_REQUEST_TERMINATED_COMPLETED_OK), else 0.
static inline int jqc_mhd_completed_ok(enum MHD_RequestTerminationCode code) {
    return code == MHD_REQUEST_TERMINATED_COMPLETED_OK ? 1 : 0;
}
