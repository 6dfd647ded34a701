//! The sealed node: libp2p transport, the durable store, and the actor that drives
//! sessions.
//!
//! Nothing is here yet: the node is its own issue, built on the protocol core and the
//! games. Until then, games are played in memory (tests) and checked offline with
//! `sealed verify`.
