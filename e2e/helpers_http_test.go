package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/redistest"
)

// postJSON posts body as JSON and returns the status and the answer's body.
func postJSON(t *testing.T, url string, body any) (int, string) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := httpClient.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

// getStatus returns the status of a GET.
func getStatus(t *testing.T, url string) int {
	t.Helper()
	status, _ := getBody(t, url)
	return status
}

// getBody returns the status and body of a GET.
func getBody(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := httpClient.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

// ownRedis starts a redis-server for this test alone (it costs milliseconds), stopped when the
// test ends, and returns a client of it and its address: tests that each have their own
// Redis and their own zpulse run side by side.
func ownRedis(t *testing.T) (*redis.Client, string) {
	t.Helper()
	srv, err := redistest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return redisClient(t, srv.Addr), srv.Addr
}

// redisClient returns a client of the Redis at addr, closed when the test ends.
func redisClient(t *testing.T, addr string) *redis.Client {
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}
