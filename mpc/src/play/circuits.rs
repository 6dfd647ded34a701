//! The compiled circuits a game uses, by shape, and how the next computation's input
//! wires divide between carried labels, public padding and the two sides' fresh bits.

use std::collections::HashMap;

use garble_lang::GarbleProgram;

use super::Fault;
use super::public::Public;
use super::run::{Layout, Source};
use crate::inputs::items_literal;
use crate::kept::{self, FIXED_BITS, ITEM_BITS, KEY_BITS, KeptShape};

/// The compiled circuits, by shape: compiling one takes about a second, so both sides
/// keep them.
#[derive(Default)]
pub struct Circuits {
    start: Option<GarbleProgram>,
    attempts: HashMap<KeptShape, GarbleProgram>,
}

/// Why a computation could not go on: a fault of the other side's, or a circuit that
/// would not compile (a bug of ours, no player's).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayError {
    /// A message the other side sent.
    Fault(Fault),
    /// The circuit of this shape did not compile.
    Compile(String),
    /// A step asked out of turn (the caller's mistake).
    OutOfTurn(&'static str),
}

impl From<Fault> for PlayError {
    fn from(f: Fault) -> Self {
        PlayError::Fault(f)
    }
}

impl Circuits {
    /// Attempt shapes compiled so far.
    pub fn shapes(&self) -> usize {
        self.attempts.len()
    }

    /// Whether the start's program is compiled.
    pub fn has_start(&self) -> bool {
        self.start.is_some()
    }

    /// The attempt shapes compiled, in no order.
    pub fn compiled(&self) -> Vec<KeptShape> {
        self.attempts.keys().copied().collect()
    }

    /// Whether the attempt's program of this shape is compiled.
    pub fn has(&self, shape: &KeptShape) -> bool {
        self.attempts.contains_key(shape)
    }

    /// Takes the start's program compiled elsewhere ([`compile_start`]), unless one is
    /// here already: a caller that shares these circuits compiles without holding them.
    pub fn put_start(&mut self, prg: GarbleProgram) {
        self.start.get_or_insert(prg);
    }

    /// Takes an attempt's program compiled elsewhere ([`kept::compile`]), unless one of
    /// that shape is here already.
    pub fn put(&mut self, shape: KeptShape, prg: GarbleProgram) {
        self.attempts.entry(shape).or_insert(prg);
    }

    fn start(&mut self) -> Result<&GarbleProgram, PlayError> {
        if self.start.is_none() {
            self.start = Some(compile_start()?);
        }
        self.start
            .as_ref()
            .ok_or(PlayError::Compile("the start".into()))
    }

    fn attempt(&mut self, shape: KeptShape) -> Result<&GarbleProgram, PlayError> {
        use std::collections::hash_map::Entry;
        match self.attempts.entry(shape) {
            Entry::Occupied(e) => Ok(e.into_mut()),
            Entry::Vacant(e) => Ok(e.insert(kept::compile(&shape).map_err(PlayError::Compile)?)),
        }
    }

    /// The next computation's program: the start before it, else the attempt's.
    pub(super) fn next(
        &mut self,
        public: &Public,
        started: bool,
    ) -> Result<&GarbleProgram, PlayError> {
        if started {
            self.attempt(public.shape())
        } else {
            self.start()
        }
    }
}

/// Compiles the start's program.
pub fn compile_start() -> Result<GarbleProgram, PlayError> {
    kept::compile_source(&kept::start_source()).map_err(PlayError::Compile)
}

/// The next computation's layout and its public bits: for an attempt, `Fixed` and the
/// window's and earlier attempts' real entries carried, their padding public (keys and
/// items that repeat nothing; a group with no entry at all is one unused entry), then
/// White's and Black's fresh bits.
pub(super) fn layout(
    prg: &GarbleProgram,
    public: &Public,
    started: bool,
) -> Result<(Layout, Vec<bool>), PlayError> {
    let c = prg.circuit.unwrap_ssa_ref();
    let g = &c.input_gates;
    let kept = KEY_BITS + FIXED_BITS;
    let returned = c.output_gates.len().saturating_sub(kept);
    if !started {
        let inputs = vec![(Source::Garbler, g[0]), (Source::Evaluator, g[1])];
        return Ok((Layout { inputs, returned }, vec![]));
    }
    let shape = public.shape();
    let m = public.mover();
    let mut inputs = vec![(Source::Carried, g[0])];
    let mut bits = vec![];
    let mut group = |arg: usize,
                     real: usize,
                     padded: usize,
                     width: usize,
                     never: String|
     -> Result<(), PlayError> {
        if padded == 0 {
            inputs.push((Source::Public, width));
            bits.extend(std::iter::repeat_n(false, width));
            return Ok(());
        }
        let all = prg
            .parse_arg(arg, &never)
            .map_err(|e| PlayError::Compile(format!("padding: {e:?}")))?
            .as_bits();
        inputs.push((Source::Carried, real * width));
        inputs.push((Source::Public, (padded - real) * width));
        bits.extend_from_slice(all.get(real * width..).unwrap_or_default());
        Ok(())
    };
    let keys = vec![kept::NEVER_KEY; shape.window.max(1)].join(", ");
    group(
        1,
        public.windows[m],
        shape.window,
        KEY_BITS,
        format!("[{keys}]"),
    )?;
    let items = vec![kept::NEVER_ITEM; shape.earlier.max(1)];
    group(
        2,
        public.earlier,
        shape.earlier,
        ITEM_BITS,
        items_literal(&items),
    )?;
    inputs.push((Source::Garbler, g[3]));
    inputs.push((Source::Evaluator, g[4]));
    Ok((Layout { inputs, returned }, bits))
}
