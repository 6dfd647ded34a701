//! The swarm table's rows: the roles attacked, the request kinds, and what a stranger
//! sends of each (`next_of`), with the games he sets up first (`set_up`).

use super::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Role {
    Public,
    Referee,
    Player,
}

impl Role {
    pub(super) fn name(self) -> &'static str {
        match self {
            Role::Public => "public node",
            Role::Referee => "referee",
            Role::Player => "player",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Silent,
    Lookup,
    Introduce,
    Ruling,
    Witness,
    Pull,
    Heads,
    Deposits,
    Propose,
    Offer,
    OfferFrom,
    Push,
    PushSmall,
    PushMany,
    Deposit,
}

impl Kind {
    /// The row's name: the request and its size.
    pub(super) fn name(self) -> &'static str {
        match self {
            Kind::Silent => "silent TCP x128",
            Kind::Lookup => "lookup Register",
            Kind::Introduce => "Introduce 16 addrs",
            Kind::Ruling => "Ruling 4 KiB",
            Kind::Witness => "Witness",
            Kind::Pull => "Pull, have none",
            Kind::Heads => "Heads 16384",
            Kind::Deposits => "Deposits from 0",
            Kind::Propose => "Propose",
            Kind::Offer => "Offer 120x60 KiB",
            Kind::OfferFrom => "OfferFrom 120x60KiB",
            Kind::Push => "Push 128x60 KiB",
            Kind::PushSmall => "Push 1024x64 B",
            Kind::PushMany => "PushMany 128x60KiB",
            Kind::Deposit => "Deposit 7 MiB",
        }
    }

    /// The rows of a role, reads before writes (a write fills the day's quotas).
    pub(super) fn of(role: Role) -> Vec<Kind> {
        use Kind::*;
        let all = [
            Silent, Lookup, Introduce, Ruling, Witness, Pull, Heads, Deposits, Propose, Offer,
            OfferFrom, Push, PushSmall, PushMany, Deposit,
        ];
        all.into_iter()
            .filter(|k| match role {
                Role::Public => true,
                // Only a mailbox or relay is a lookup point; only the public node keeps
                // envelopes of strangers' games to push small ones into.
                _ => !matches!(k, Lookup | PushSmall),
            })
            .collect()
    }

    /// Strangers of the flood, and requests each keeps in flight.
    pub(super) fn shape(self) -> (usize, usize) {
        match self {
            Kind::Silent | Kind::Lookup => (UNITS, 1),
            Kind::Introduce | Kind::Ruling | Kind::Propose => (UNITS, 8),
            Kind::Witness => (8, 16),
            Kind::Pull => (16, 4),
            Kind::Heads => (16, 2),
            Kind::PushSmall => (8, 2),
            Kind::Deposits => (16, 1),
            // Sixteen messages of 7 to 8 MiB at once are already twice what a node
            // reads at once from everyone (64 MiB).
            Kind::Offer | Kind::OfferFrom | Kind::Push | Kind::PushMany | Kind::Deposit => {
                (UNITS / 2, 1)
            }
        }
    }

    /// Requests each stranger sends at most in the short run: the large writes, which
    /// the victim takes seconds to work through, are as many as its strangers twice
    /// over (the first of each at once: twice what it reads at once from everyone).
    pub(super) fn cap(self, long: bool) -> Option<u64> {
        match self {
            _ if long => None,
            Kind::Offer | Kind::OfferFrom | Kind::Push | Kind::PushMany | Kind::Deposit => Some(2),
            Kind::PushSmall => Some(4),
            _ => None,
        }
    }

    /// Games each stranger proposes before its flood.
    pub(super) fn games(self, role: Role) -> usize {
        match self {
            Kind::Silent | Kind::Lookup | Kind::Propose | Kind::Offer | Kind::OfferFrom => 0,
            Kind::PushMany if role == Role::Public => 4,
            Kind::PushMany => 2,
            _ => 1,
        }
    }
}

pub(super) struct Plan {
    pub(super) long: bool,
    pub(super) flood: Duration,
    pub(super) drain: Duration,
    /// Only the rows whose request kind's name contains this (`SEALED_SWARM_ONLY`), to
    /// look at one attack closely; every row when unset.
    pub(super) only: Option<String>,
}

impl Plan {
    pub(super) fn from_env() -> Plan {
        let long = std::env::var("SEALED_SWARM").is_ok_and(|v| v == "long");
        Plan {
            long,
            flood: Duration::from_secs(if long { 20 } else { 2 }),
            drain: Duration::from_secs(if long { 30 } else { 20 }),
            only: std::env::var("SEALED_SWARM_ONLY").ok(),
        }
    }
}

/// The three victims, by role.
pub(super) struct Victims {
    pub(super) procs: [Option<Proc>; 3],
    pub(super) keys: [[u8; 32]; 3],
}

impl Victims {
    pub(super) fn get(&self, r: Role) -> &Proc {
        self.procs[r as usize].as_ref().expect("a running victim")
    }

    pub(super) fn key(&self, r: Role) -> [u8; 32] {
        self.keys[r as usize]
    }

    /// Which victims have died.
    pub(super) fn dead(&mut self) -> Vec<&'static str> {
        let mut out = vec![];
        for (r, p) in [Role::Public, Role::Referee, Role::Player]
            .into_iter()
            .zip(self.procs.iter_mut())
        {
            if !p.as_mut().is_some_and(Proc::alive) {
                out.push(r.name());
            }
        }
        out
    }
}

/// A game of the attacker's `me` that names the victim of `role`: the public node as
/// mailbox and witness (his own second key the other seat), the referee as Secret
/// Stallmate's referee, the player as opponent. The deposits' floods at the witness
/// name a game whose players compute (Secret Stallmate without a referee), where a
/// deposit alone may be as large as a computation's message: in any other game it is
/// an envelope's at most.
pub(super) fn game_for(
    role: Role,
    kind: Kind,
    v: &Victims,
    me: &SecretKey,
    other: [u8; 32],
) -> Terms {
    let variant = match kind {
        Kind::Deposit | Kind::Deposits => "stallmate-duo",
        _ => "duel",
    };
    match role {
        Role::Public => terms(
            variant,
            me,
            other,
            None,
            Some((v.key(Role::Public), &v.get(Role::Public).addr)),
            true,
        ),
        Role::Referee => proposal(
            "stallmate",
            me,
            other,
            Some(v.key(Role::Referee)),
            vec![],
            nonce(),
        ),
        Role::Player => terms("duel", me, v.key(Role::Player), None, None, false),
    }
}

/// The honest newcomer's request: a game naming the public node as mailbox, a game
/// seating the referee, an invitation to the player.
pub(super) fn newcomer_game(role: Role, v: &Victims, me: &SecretKey) -> Terms {
    let other = SecretKey::from_seed(&seed(8, nonce())).public().to_bytes();
    match role {
        Role::Public => terms(
            "duel",
            me,
            other,
            None,
            Some((v.key(Role::Public), &v.get(Role::Public).addr)),
            false,
        ),
        Role::Referee | Role::Player => game_for(role, Kind::Propose, v, me, other),
    }
}

/// The address of stranger `u` of a row whose /24s begin at `127.base.0.0`: eight /24s,
/// two addresses in each.
pub(super) fn origin(base: u8, u: usize) -> Ipv4Addr {
    Ipv4Addr::new(127, base + (u % 8) as u8, 0, 2 + ((u / 8) % 2) as u8)
}

/// One stranger of a row: its key, its games, the next seq of its first game's chain.
pub(super) struct Unit {
    pub(super) u: usize,
    pub(super) me: SecretKey,
    pub(super) games: Vec<Terms>,
    pub(super) seq: u64,
}

/// A row's figures.
pub(super) struct Row {
    pub(super) role: Role,
    pub(super) kind: Kind,
    pub(super) tally: Tally,
    pub(super) victim_cpu: f64,
    pub(super) attacker_cpu: f64,
    pub(super) peak_kib: u64,
    pub(super) rss_kib: u64,
    pub(super) store_kib: i64,
    /// The victim's resident set above its level at the window's start, summed over
    /// the window (sampled every 100 ms), in KiB·s.
    pub(super) held_kib_s: f64,
    /// Bytes the strangers sent: their requests in the window, as encoded, and the
    /// fills of the setup.
    pub(super) sent_bytes: u64,
    pub(super) newcomer: Newcomer,
    pub(super) newcomer_game: String,
    pub(super) took: (Duration, Duration),
    pub(super) dead: Vec<&'static str>,
    pub(super) setup: String,
}

impl Row {
    pub(super) fn ratio(&self) -> f64 {
        self.victim_cpu / self.attacker_cpu.max(0.01)
    }

    /// Byte-seconds the victim held per byte the attacker sent (issue 52's goal: at
    /// most the request's timeout, 30 s); none for floods that send no sync requests
    /// (silent connections, lookup records: their resource is a slot, in its own row).
    pub(super) fn held_per_byte(&self) -> Option<f64> {
        (self.sent_bytes > 0).then(|| self.held_kib_s * 1024.0 / self.sent_bytes as f64)
    }
}

pub(super) fn good(r: &Response) -> bool {
    matches!(r, Response::Ok { .. })
}

/// Connects strangers of keys `seeds` from their addresses, at once; those that did.
pub(super) async fn connect_all(
    addr: String,
    who: Vec<([u8; 32], Ipv4Addr)>,
) -> Vec<(Stranger, PeerId)> {
    let tries = who.into_iter().map(|(sd, ip)| {
        let addr = addr.clone();
        async move {
            let mut s = stranger(sd, &ip.to_string());
            s.connect(&addr).await.ok().map(|p| (s, p))
        }
    });
    futures::future::join_all(tries)
        .await
        .into_iter()
        .flatten()
        .collect()
}

/// A row's strangers' setup: their games proposed, and (the public node's) filled with
/// what the flood reads: envelopes to pull, to be witnessed, a deposit to fetch. How
/// many games were taken, how many fills, and the fills' bytes.
pub(super) async fn set_up(
    kind: Kind,
    role: Role,
    pairs: &mut [(Stranger, PeerId)],
    units: &mut [Unit],
) -> (usize, usize, u64) {
    let steps = pairs
        .iter_mut()
        .zip(units.iter_mut())
        .map(|((s, p), unit)| {
            let p = *p;
            async move {
                let (mut games, mut filled, mut bytes) = (0, 0, 0u64);
                for t in &unit.games {
                    let r = settle(
                        s,
                        p,
                        Request::Propose {
                            proposal: t.bytes().to_vec(),
                        },
                        Duration::from_secs(10),
                    )
                    .await;
                    games += usize::from(matches!(r, Ok(Response::Ok { .. })));
                }
                if role != Role::Public || unit.games.is_empty() {
                    return (games, filled, bytes);
                }
                let t = unit.games[0].clone();
                let fill: Vec<Request> = match kind {
                    Kind::Pull | Kind::Heads => vec![Request::Push {
                        game: t.game(),
                        envelopes: (0..48).map(|q| envelope(&t, &unit.me, 0, q, BIG)).collect(),
                    }],
                    Kind::Witness => (0..2)
                        .map(|h| Request::Push {
                            game: t.game(),
                            envelopes: (0..2048)
                                .map(|q| envelope(&t, &unit.me, 0, h * 2048 + q, 64))
                                .collect(),
                        })
                        .collect(),
                    Kind::Deposits => vec![Request::Deposit {
                        game: t.game(),
                        deposits: vec![vec![unit.u as u8; DEPOSIT]],
                    }],
                    _ => vec![],
                };
                unit.seq = match kind {
                    Kind::Pull | Kind::Heads => 48,
                    Kind::Witness => 4096,
                    _ => 0,
                };
                for req in fill {
                    bytes += postcard::to_allocvec(&req).map_or(0, |b| b.len() as u64);
                    let r = settle(s, p, req, Duration::from_secs(20)).await;
                    filled +=
                        usize::from(matches!(&r, Ok(r) if !matches!(r, Response::Refused(_))));
                }
                (games, filled, bytes)
            }
        });
    futures::future::join_all(steps)
        .await
        .into_iter()
        .fold((0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2))
}

/// What stranger `unit` sends in a flood of `kind` against `role`.
pub(super) fn next_of(kind: Kind, role: Role, v: &Victims, tag: u8, mut unit: Unit) -> Next {
    let victim_key = v.key(role);
    let public = (v.key(Role::Public), v.get(Role::Public).addr.clone());
    let referee = v.key(Role::Referee);
    // A fresh game naming the victim, from a fresh proposer every 8 games (a proposer
    // has 16 open at a node).
    let fresh = move |n: u64, u: usize| -> (Terms, SecretKey) {
        let me = SecretKey::from_seed(&seed(tag, 100_000 + (u as u64) * 10_000 + n / 8));
        let other = SecretKey::from_seed(&seed(tag, 900_000 + n))
            .public()
            .to_bytes();
        let t = match role {
            Role::Public => terms("duel", &me, other, None, Some((public.0, &public.1)), true),
            Role::Referee => proposal("stallmate", &me, other, Some(referee), vec![], nonce()),
            Role::Player => terms("duel", &me, victim_key, None, None, false),
        };
        (t, me)
    };
    let first = unit.games.first().map(Terms::game);
    let game = move || first.expect("a game of the stranger's");
    match kind {
        Kind::Silent | Kind::Lookup => Box::new(|_| None),
        Kind::Propose => Box::new(move |n| {
            let (t, _) = fresh(n, unit.u);
            Some(Request::Propose {
                proposal: t.bytes().to_vec(),
            })
        }),
        Kind::Offer | Kind::OfferFrom => Box::new(move |n| {
            let (t, me) = fresh(n, unit.u);
            let envelopes = (0..120).map(|q| envelope(&t, &me, 0, q, BIG)).collect();
            let proposal = t.bytes().to_vec();
            Some(if kind == Kind::Offer {
                Request::Offer {
                    proposal,
                    envelopes,
                }
            } else {
                // Where the stranger says it came from: a network of its choosing.
                Request::OfferFrom {
                    proposal,
                    envelopes,
                    origin: format!("ip4/10.{}.{}.7", unit.u, n % 250),
                }
            })
        }),
        Kind::Push | Kind::PushSmall => Box::new(move |_| {
            let t = &unit.games[0];
            let (count, size) = if kind == Kind::Push {
                (BIG_PUSH, BIG)
            } else {
                (1024, 64)
            };
            let envelopes = (unit.seq..unit.seq + count)
                .map(|q| envelope(t, &unit.me, 0, q, size))
                .collect();
            unit.seq += count;
            Some(Request::Push {
                game: t.game(),
                envelopes,
            })
        }),
        Kind::PushMany => Box::new(move |_| {
            let per = BIG_PUSH / unit.games.len() as u64;
            let games = unit
                .games
                .iter()
                .map(|t| {
                    let e = (unit.seq..unit.seq + per)
                        .map(|q| envelope(t, &unit.me, 0, q, BIG))
                        .collect();
                    (t.game(), e)
                })
                .collect();
            unit.seq += per;
            Some(Request::PushMany { games })
        }),
        Kind::Pull => Box::new(move |_| {
            Some(Request::Pull {
                game: game(),
                have: vec![],
            })
        }),
        Kind::Heads => {
            // The stranger's own game twice (each answered with all it holds), then
            // games nobody has heard of.
            let mut games = vec![(game(), vec![]), (game(), vec![])];
            games.extend((2..HEADS).map(|i| {
                let mut b = [0xee; 32];
                b[..8].copy_from_slice(&(i as u64).to_le_bytes());
                b[8] = unit.u as u8;
                (GameId::from(b), vec![])
            }));
            let req = Request::Heads { games };
            Box::new(move |_| Some(req.clone()))
        }
        Kind::Introduce => {
            let addrs = (0..16u64)
                .map(|i| {
                    format!(
                        "/ip4/127.99.{}.{i}/tcp/9/p2p/{}",
                        unit.u,
                        random_peer_id(7_000 + unit.u as u64 * 16 + i)
                    )
                })
                .collect::<Vec<_>>();
            Box::new(move |_| {
                Some(Request::Introduce {
                    game: game(),
                    addrs: addrs.clone(),
                })
            })
        }
        Kind::Witness => Box::new(move |_| Some(Request::Witness { game: game() })),
        Kind::Deposits => Box::new(move |_| {
            Some(Request::Deposits {
                game: game(),
                from: 0,
            })
        }),
        Kind::Deposit => Box::new(move |n| {
            let mut d = vec![0x3c; DEPOSIT];
            d[..8].copy_from_slice(&n.to_le_bytes());
            d[8] = unit.u as u8;
            Some(Request::Deposit {
                game: game(),
                deposits: vec![d],
            })
        }),
        Kind::Ruling => Box::new(move |n| {
            Some(Request::Ruling {
                game: game(),
                act: vec![n as u8; sealed_node::core::message::MAX_RULING],
            })
        }),
    }
}
