#include <sys/types.h>
#include <sys/socket.h>
#include <stdint.h>
#include <stdarg.h>
#include <string.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

// Typed wrappers for libmicrohttpd's variadic start call and closed enums (STYLE.md pitfalls).
/// Starts a daemon on `port` (0 = any free port) bound to 127.0.0.1 unless `bind_any` is set, in
/// thread-pool mode with `threads` workers. The access handler and completion callback are C pointers.
static inline struct MHD_Daemon *jqc_mhd_start(uint16_t port, int bind_loopback_only, unsigned int threads,
                                               MHD_AccessHandlerCallback handler, void *handler_context,
                                               MHD_RequestCompletedCallback completed, void *completed_context,
                                               unsigned int connection_timeout_seconds) {
    struct sockaddr_in address;
    memset(&address, 0, sizeof(address));
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = bind_loopback_only ? htonl(INADDR_LOOPBACK) : htonl(INADDR_ANY);
    return MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG,
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
