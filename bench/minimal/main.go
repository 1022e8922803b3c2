// Command minimal is the reference for zpulse's HTTP add-points figure: the least a Go
// server can do for the same request, net/http and go-redis with one ZINCRBY per POST and no
// validation beyond decoding. zpulse's POST /api/v1/boards/{board}/scores is compared with it
// side by side on the same Redis.
//
//	go run ./bench/minimal -addr 127.0.0.1:8090 -redis 127.0.0.1:6379
package main

import (
	"encoding/json"
	"flag"
	"log"
	"net/http"

	"github.com/redis/go-redis/v9"

	"github.com/zpulse/zpulse/internal/redisrepo"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8090", "listen address")
	redisAddr := flag.String("redis", "127.0.0.1:6379", "Redis address")
	flag.Parse()
	rdb := redis.NewClient(&redis.Options{Addr: *redisAddr})
	mux := http.NewServeMux()
	// The same path and body as zpulse's API: {"player": "alice", "points": 10}.
	mux.HandleFunc("POST /api/v1/boards/{board}/scores", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Player string `json:"player"`
			Points int64  `json:"points"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		score, err := rdb.ZIncrBy(r.Context(), redisrepo.DefaultKeys.Leaderboard(r.PathValue("board")), float64(req.Points), req.Player).Result()
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"player": req.Player, "score": int64(score)})
	})
	log.Fatal(http.ListenAndServe(*addr, mux))
}
