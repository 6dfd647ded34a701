//! The message stream between two real libp2p swarms on loopback: the receiver's
//! answer byte, and the sender's report when it does not come.
use super::*;
use libp2p::swarm::SwarmEvent;
use libp2p::{Multiaddr, Swarm};

/// The largest message of the games these tests allow: Secret Stallmate's without a
/// referee, as the registry gives it to the core.
const PER_GAME: usize = 7 << 20;

fn swarm(seed: u8) -> Swarm<libp2p_stream::Behaviour> {
    use libp2p::{noise, tcp, yamux};
    libp2p::SwarmBuilder::with_existing_identity(crate::net::keypair(&[seed; 32]))
        .with_tokio()
        .with_tcp(
            tcp::Config::default().nodelay(true),
            noise::Config::new,
            yamux::Config::default,
        )
        .expect("tcp")
        .with_behaviour(|_| libp2p_stream::Behaviour::new())
        .expect("behaviour")
        .with_swarm_config(|c| c.with_idle_connection_timeout(Duration::from_secs(600)))
        .build()
}

/// Two swarms, the second connected to the first, both driven in tasks: their
/// controls and peer ids.
async fn pair() -> ((Control, PeerId), (Control, PeerId)) {
    let mut a = swarm(1);
    a.listen_on("/ip4/127.0.0.1/tcp/0".parse().expect("addr"))
        .expect("listen");
    let at: Multiaddr = loop {
        if let SwarmEvent::NewListenAddr { address, .. } = a.select_next_some().await {
            break address;
        }
    };
    let mut b = swarm(2);
    b.dial(at).expect("dial");
    let (ca, ia) = (a.behaviour().new_control(), *a.local_peer_id());
    let (cb, ib) = (b.behaviour().new_control(), *b.local_peer_id());
    // Each side connected in its own view before either opens a stream (a stream
    // to a peer not yet connected would be a dial, with no address to dial).
    let (up, a_up) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let mut up = Some(up);
        loop {
            if let SwarmEvent::ConnectionEstablished { .. } = a.select_next_some().await
                && let Some(up) = up.take()
            {
                let _ = up.send(());
            }
        }
    });
    loop {
        if let SwarmEvent::ConnectionEstablished { .. } = b.select_next_some().await {
            break;
        }
    }
    tokio::spawn(async move {
        loop {
            b.select_next_some().await;
        }
    });
    a_up.await.expect("A connected");
    ((ca, ia), (cb, ib))
}

/// The next message the sender reports lost. The wait is bounded so that a sender
/// that never reports fails the test instead of hanging it; it is no measure of speed.
async fn reported(c: &mut Computations) -> (PeerId, [u8; 32], u64) {
    tokio::time::timeout(Duration::from_secs(60), c.lost.recv())
        .await
        .expect("a report within a minute")
        .expect("the channel open")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_read_whole_is_answered_and_one_dropped_is_reported_lost() {
    let ((ca, ia), (mut cb, ib)) = pair().await;
    // A receives with the node's reader, B the other player of game 5 there.
    let mut a = Computations::new(ca);
    a.start();
    let kb = crate::shell::key_of(&ib).expect("an ed25519 peer id");
    a.allow([((kb, [5; 32]), PER_GAME)].into_iter());
    // Read whole: answered, and handed on.
    deliver(cb.clone(), ia, [5; 32], 3, b"hello")
        .await
        .expect("answered");
    let got = a.arrived.recv().await.expect("arrived").take();
    assert_eq!(got, (ib, [5; 32], 3, b"hello".to_vec()));
    // Past the cap: closed before its bytes are read, and not answered.
    let why = deliver(cb.clone(), ia, [5; 32], 4, &vec![0; PER_GAME + 1])
        .await
        .expect_err("a message past the cap is not answered");
    assert!(!why.to_string().is_empty());
    // The cap is the game's: a game whose messages are smaller takes none larger.
    a.allow([((kb, [5; 32]), PER_GAME), ((kb, [7; 32]), 2 * CHUNK)].into_iter());
    deliver(cb.clone(), ia, [7; 32], 0, &vec![3; 2 * CHUNK + 1])
        .await
        .expect_err("past that game's cap");
    deliver(cb.clone(), ia, [7; 32], 1, &vec![3; 2 * CHUNK])
        .await
        .expect("within it");
    let got = a.arrived.recv().await.expect("arrived").take();
    assert_eq!((got.2, got.3.len()), (1, 2 * CHUNK));
    // The next one is still taken, and nothing of the one refused came through.
    deliver(cb.clone(), ia, [5; 32], 6, b"again")
        .await
        .expect("answered");
    let got = a.arrived.recv().await.expect("arrived").take();
    assert_eq!((got.2, got.3), (6, b"again".to_vec()));

    // B reads A's message whole and answers nothing (as a node of document 2.8
    // does): A's sender reports it lost, its side having closed without error.
    let mut incoming = cb.accept(PROTOCOL).expect("accept");
    let mut sender = Computations::new(a.control.clone());
    sender.send(ib, [7; 32], 9, b"unanswered".to_vec());
    let (_, mut stream) = incoming.next().await.expect("a stream");
    let mut all = Vec::new();
    stream.read_to_end(&mut all).await.expect("read whole");
    assert_eq!(&all[44..], b"unanswered");
    stream.close().await.expect("closed");
    assert_eq!(reported(&mut sender).await, (ib, [7; 32], 9));
    // Answered by hand: no report.
    sender.send(ib, [7; 32], 10, b"kept".to_vec());
    let (_, mut stream) = incoming.next().await.expect("a stream");
    let mut header = [0u8; 44];
    stream.read_exact(&mut header).await.expect("header");
    let mut body = Vec::new();
    stream.read_to_end(&mut body).await.expect("body");
    assert_eq!(body, b"kept");
    stream.write_all(&[READ_WHOLE]).await.expect("answer");
    stream.close().await.expect("closed");
    // A third, dropped unread (as libp2p-stream does when its acceptor is busy):
    // the next report names it, not the one answered.
    sender.send(ib, [7; 32], 11, b"dropped".to_vec());
    let (_, stream) = incoming.next().await.expect("a stream");
    drop(stream);
    assert_eq!(reported(&mut sender).await, (ib, [7; 32], 11));
    // The copy the core asks for on that report goes (the lost send is over).
    sender.send(ib, [7; 32], 11, b"again".to_vec());
    let (_, mut stream) = incoming.next().await.expect("a stream");
    let mut all = Vec::new();
    stream.read_to_end(&mut all).await.expect("read whole");
    assert_eq!(&all[44..], b"again");
}

/// Waits until `pair`'s account at A holds `want` bytes. The bound
/// only keeps a broken build from hanging the test; it measures nothing.
async fn settles(a: &Computations, pair: Pair, want: usize) {
    tokio::time::timeout(Duration::from_secs(30), async {
        while lock(&a.accounts).get(&pair).map_or(0, |x| x.held) != want {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the account settles");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_a_games_other_player_holds_bytes_and_one_messages_worth_at_most() {
    let ((ca, ia), (cb, ib)) = pair().await;
    let mut a = Computations::new(ca);
    a.start();
    let kb = crate::shell::key_of(&ib).expect("an ed25519 peer id");
    // No game computes here with B yet: his message is dropped unread.
    deliver(cb.clone(), ia, [5; 32], 0, b"early")
        .await
        .expect_err("a peer not allowed is not answered");
    // Allowed for game 5, not for game 6.
    a.allow([((kb, [5; 32]), PER_GAME)].into_iter());
    deliver(cb.clone(), ia, [6; 32], 0, b"other game")
        .await
        .expect_err("another game of his is not read");
    // A message of game 5 read whole holds its bytes until the core takes it.
    let big = vec![4u8; 3 * CHUNK + 5];
    deliver(cb.clone(), ia, [5; 32], 1, &big)
        .await
        .expect("answered");
    settles(&a, (kb, [5; 32]), big.len()).await;
    // A second message of the game while the first waits: past one message's worth,
    // dropped.
    deliver(cb.clone(), ia, [5; 32], 3, &vec![1u8; PER_GAME - CHUNK])
        .await
        .expect_err("past the game's account");
    let got = a.arrived.recv().await.expect("arrived");
    assert_eq!(got.index, 1);
    got.take();
    settles(&a, (kb, [5; 32]), 0).await;
    // A stream that stalls after part of its body holds what it sent and one chunk.
    let mut c = cb.clone();
    let mut s = c.open_stream(ia, PROTOCOL).await.expect("a stream");
    let mut header = [5u8; 32].to_vec();
    header.extend_from_slice(&5u64.to_le_bytes());
    header.extend_from_slice(&(PER_GAME as u32).to_le_bytes());
    s.write_all(&header).await.expect("header");
    s.write_all(&vec![2u8; 2 * CHUNK]).await.expect("part");
    s.flush().await.expect("flushed");
    settles(&a, (kb, [5; 32]), 3 * CHUNK).await;
    // The game no longer computing: the stalled stream gets no further chunk, and
    // its account goes once it has given its bytes back.
    a.allow(std::iter::empty());
    s.write_all(&vec![2u8; 2 * CHUNK]).await.ok();
    s.close().await.ok();
    tokio::time::timeout(Duration::from_secs(30), async {
        while !lock(&a.accounts).is_empty() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the account goes");
    assert!(a.arrived.try_recv().is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_copy_of_a_games_message_is_on_its_way_at_a_time() {
    let ((ca, _), (mut cb, ib)) = pair().await;
    let mut incoming = cb.accept(PROTOCOL).expect("accept");
    let mut sender = Computations::new(ca);
    // B reads each stream whole and holds it open, answering nothing; the
    // position in its header says which send opened it.
    let mut held = vec![];
    let mut next = async || {
        let (_, mut stream) = incoming.next().await.expect("a stream");
        let mut all = Vec::new();
        stream.read_to_end(&mut all).await.expect("read whole");
        let index = u64::from_le_bytes(all[32..40].try_into().expect("8 bytes"));
        held.push(stream);
        index
    };
    sender.send(ib, [8; 32], 5, vec![1; 1000]);
    assert_eq!(next().await, 5);
    // The same message again while the first copy waits: no second stream (the
    // next one B sees is message 6's), and the first copy is left to finish.
    sender.send(ib, [8; 32], 5, vec![1; 1000]);
    assert_eq!(sender.sending_bytes(), 1000);
    // A newer message of the game stops the older one's send.
    sender.send(ib, [8; 32], 6, vec![2; 700]);
    assert_eq!(next().await, 6);
    // Another game's send is its own.
    sender.send(ib, [9; 32], 0, vec![3; 10]);
    assert_eq!(next().await, 0);
    // What the sends hold: message 6 and game 9's. The bound only keeps a broken
    // build from hanging the test; it measures nothing.
    tokio::time::timeout(Duration::from_secs(30), async {
        while sender.sending_bytes() != 700 + 10 {
            tokio::task::yield_now().await;
        }
    })
    .await
    .expect("the older message's send is stopped");
    // A stopped send reports nothing.
    assert!(sender.lost.try_recv().is_err());
}
