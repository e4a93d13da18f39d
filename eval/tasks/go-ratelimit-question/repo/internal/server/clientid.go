package server

import (
	"net"
	"net/http"
	"strings"
)

// clientKey identifies the client a request is counted against: its API key
// if it sends one, otherwise its IP address (the first X-Forwarded-For entry
// when the proxy in front is trusted).
func clientKey(r *http.Request, trustForwarded bool) string {
	if key := strings.TrimSpace(r.Header.Get("X-API-Key")); key != "" {
		return "key:" + key
	}
	if trustForwarded {
		if fwd := r.Header.Get("X-Forwarded-For"); fwd != "" {
			first := strings.TrimSpace(strings.Split(fwd, ",")[0])
			if first != "" {
				return "ip:" + first
			}
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return "ip:" + host
}
