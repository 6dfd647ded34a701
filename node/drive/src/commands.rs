//! The driver's commands of a person and inputs of the transport beyond the common
//! ones: moves in any words, withdrawals, bots, the game shown and exported, mail out
//! and back in (changed or not), rulings, proposals, standing mailboxes; addresses
//! learned, dials failed, duties due, lookup points.

use super::{Bytes, MAIL_EXPORT, VARIANTS, World};
use sealed_node::core::{Cmd, CmdId, GameRef, Input, PeerKey, ProposeArgs, ShowFormat};

impl World {
    /// Commands a person gives and inputs the transport gives, beyond the common ones.
    pub(super) fn more(&mut self, b: &mut Bytes<'_>) {
        let game = self.game_id(b);
        let g: GameRef = game.into();
        let (id, cmd) = match b.below(14) {
            0..=3 => {
                const WORDS: [&str; 12] = [
                    "resign",
                    "offer draw",
                    "accept draw",
                    "accept",
                    "decline",
                    "e4",
                    "e2e4",
                    "Nf3",
                    "play 1",
                    "draw",
                    "d4",
                    "claim timeout",
                ];
                let text = if b.below(3) == 0 {
                    String::from_utf8_lossy(&(0..b.below(12)).map(|_| b.u8()).collect::<Vec<_>>())
                        .into_owned()
                } else {
                    WORDS[b.below(WORDS.len())].to_owned()
                };
                let expect = (b.below(2) == 0).then(|| b.below(8));
                (
                    0,
                    Cmd::Move {
                        game: g,
                        text,
                        expect,
                    },
                )
            }
            4 => (0, Cmd::Withdraw(g)),
            5 => {
                let format = match b.below(4) {
                    0 => ShowFormat::Json,
                    1 => ShowFormat::Text,
                    2 => ShowFormat::Svg,
                    _ => ShowFormat::Other("pdf".into()),
                };
                (0, Cmd::Show(g, format))
            }
            6 => (
                0,
                match b.below(3) {
                    0 => Cmd::Transcript(g),
                    1 => Cmd::Score(g),
                    _ => Cmd::Pgn(g),
                },
            ),
            7 => (MAIL_EXPORT.0, Cmd::MailExport(g)),
            8 => {
                let mail = match (&self.mail, b.below(3)) {
                    (Some(m), 0) => m.clone(),
                    (Some(m), 1) => {
                        let mut m = m.clone().into_bytes();
                        if !m.is_empty() {
                            let k = b.below(m.len());
                            m[k] = b'A' + b.below(26) as u8;
                        }
                        String::from_utf8_lossy(&m).into_owned()
                    }
                    _ => "-----BEGIN SEALED GAME-----\nAAAA\n-----END SEALED GAME-----\n".into(),
                };
                (0, Cmd::MailImport(mail))
            }
            9 => {
                let which = (b.below(2) == 0).then_some(g);
                (0, Cmd::Bot(which, b.below(2) == 0))
            }
            10 => {
                let act = (0..b.below(40)).map(|_| b.u8()).collect();
                (
                    0,
                    Cmd::Ruling {
                        game: g,
                        dispute: b.below(3) as u32,
                        act,
                    },
                )
            }
            11 => {
                let opponent = self.peer(b.below(5));
                let variant = VARIANTS[b.below(VARIANTS.len())];
                let referee = (variant == "stallmate").then(|| (self.peer(b.below(5)), None));
                (
                    0,
                    Cmd::Propose(Box::new(ProposeArgs {
                        variant: variant.into(),
                        options: vec![],
                        opponent: (opponent, None),
                        mailbox: None,
                        referee,
                        witness: None,
                        names: [String::new(), String::new()],
                    })),
                )
            }
            12 => {
                // What the transport says of peers: addresses learned, dials failed, a
                // duty due, lookup points, a computation's message lost on its stream.
                let p = self.peer(b.below(5));
                let addr = format!(
                    "/ip4/9.9.9.{}/tcp/4001/p2p/{}",
                    b.below(4),
                    sealed_node::net::peer_id(p.as_bytes()).expect("a key")
                );
                let input = match b.below(5) {
                    0 => Input::Learned {
                        peer: p,
                        addrs: vec![addr],
                    },
                    1 => Input::DialFailed {
                        peer: p,
                        addrs: vec![addr],
                        why: "driven".into(),
                    },
                    2 => Input::Timeout,
                    3 => Input::MessageLost {
                        peer: p,
                        game: self.game_id(b),
                        index: u64::from(b.u8()),
                    },
                    _ => {
                        let points: Vec<PeerKey> = if b.below(2) == 0 { vec![p] } else { vec![] };
                        self.lookups = !points.is_empty();
                        Input::LookupPoints {
                            points,
                            ask: b.below(2) == 0,
                        }
                    }
                };
                self.input(input);
                return;
            }
            _ => {
                let p = self.peer(b.below(5));
                let addr = format!(
                    "/ip4/9.9.9.9/tcp/4001/p2p/{}",
                    sealed_node::net::peer_id(p.as_bytes()).expect("a key")
                );
                (0, Cmd::Stand(p, addr))
            }
        };
        self.input(Input::Command { id: CmdId(id), cmd });
    }
}
