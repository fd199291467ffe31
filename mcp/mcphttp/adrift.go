package mcphttp

// A legacy POST whose client walks away while its handler runs stops
// counting against MaxInFlight (abandoned): the handler's session still
// bounds it (mcp.ServerOptions.MaxInFlight, MaxSessions, its idle expiry),
// and the client may come back for its result. Once the session ends
// (DELETE, expiry, Shutdown) that bound is gone, but a handler slow to
// honour its cancellation still holds its POST's goroutine: a client
// repeating initialize, a long call it walks away from, and DELETE piled
// them up without limit. So an ended session's adrift POSTs take their
// places back until their handlers return, and a flood of them is refused
// with 503 like any other POST.
//
// The count moves under s.mu, where the session's end is decided (Close),
// so that each POST's place is given back at most while the session lives
// and taken again exactly once: letGo and takeBack may run in either order
// (release does not wait for abandoned), which the signed count allows.

// letGo gives back the MaxInFlight place of a POST whose client walked
// away, unless the session has ended: then the POST keeps it. owner is the
// identity the POST counts against (subjectflight.go), "" for none: its
// place there goes and comes back with the other.
func (s *httpSession) letGo(owner string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended() {
		return
	}
	s.adrift++
	s.h.posts.Add(-1)
	s.adriftOf(owner, 1)
}

// adriftOf moves the count of owner's adrift POSTs by n, and its count
// of POSTs in flight the other way. Under s.mu.
func (s *httpSession) adriftOf(owner string, n int) {
	if owner == "" {
		return
	}
	s.h.flights.add(owner, -n)
	if s.adriftBy == nil {
		s.adriftBy = map[string]int{}
	}
	if s.adriftBy[owner] += n; s.adriftBy[owner] == 0 {
		delete(s.adriftBy, owner)
	}
}

// takeBack takes back the place letGo gave up, as the POST's handler has
// returned and the POST gives its place back as it returns; an ended
// session has taken it back already (reclaimLocked).
func (s *httpSession) takeBack(owner string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended() {
		return
	}
	s.adrift--
	s.h.posts.Add(1)
	s.adriftOf(owner, -1)
}

// reclaimLocked makes the adrift POSTs of a session that has just ended
// count against MaxInFlight again. Under s.mu, with the session ended.
func (s *httpSession) reclaimLocked() {
	s.h.posts.Add(int64(s.adrift))
	s.adrift = 0
	for owner, n := range s.adriftBy {
		s.h.flights.add(owner, n)
	}
	s.adriftBy = nil
}
