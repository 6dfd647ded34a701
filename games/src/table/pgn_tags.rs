//! What every PGN a seat exports says of the game itself, whatever the variant: the
//! event, the site (the game's short id), the date it started, the players' names, and
//! the result when the game ended off the board (a resignation, an agreed draw, a loss
//! on time), which the board alone cannot say.

use sealed_protocol::outcome::{Outcome, SeatResult};
use sealed_protocol::proposal::Terms;

/// The roster's tags of a game of `terms` that started at `started` (ms since the Unix
/// epoch, the latest clock of the players' first envelopes, spec/PROTOCOL.md §5.4).
pub(crate) fn game_tags(terms: &Terms, started: Option<u64>) -> Vec<(&'static str, String)> {
    let mut tags = vec![
        ("Event", "sealed game".to_owned()),
        ("Site", format!("sealed {}", terms.game().0.short())),
    ];
    if let Some(ms) = started {
        tags.push(("Date", date(ms)));
    }
    tags.extend(super::words::player_tags(terms));
    tags
}

/// A PGN date, `YYYY.MM.DD` in UTC (the proleptic Gregorian calendar of days since
/// 1970-01-01).
pub(crate) fn date(ms: u64) -> String {
    let days = (ms / 86_400_000) as i64;
    // Howard Hinnant's civil_from_days: eras of 400 years from 0000-03-01.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}.{month:02}.{day:02}")
}

/// The PGN result token of an outcome, seat 0 playing White: `1-0`, `0-1` or
/// `1/2-1/2`; between scores (Secret Stallmate), the higher score wins.
pub(crate) fn result(o: &Outcome) -> &'static str {
    match (o.results.first(), o.results.get(1)) {
        (Some(SeatResult::Win), _) | (_, Some(SeatResult::Loss)) => "1-0",
        (Some(SeatResult::Loss), _) | (_, Some(SeatResult::Win)) => "0-1",
        (Some(SeatResult::Score(w)), Some(SeatResult::Score(b))) if w > b => "1-0",
        (Some(SeatResult::Score(w)), Some(SeatResult::Score(b))) if w < b => "0-1",
        _ => "1/2-1/2",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_the_utc_calendar_day() {
        assert_eq!(date(0), "1970.01.01");
        // 2000-02-29 (a leap day of a century year) and the day after.
        assert_eq!(date(951_782_400_000), "2000.02.29");
        assert_eq!(date(951_868_800_000 - 1), "2000.02.29");
        assert_eq!(date(951_868_800_000), "2000.03.01");
        // 2026-11-30 12:00 UTC.
        assert_eq!(date(1_796_040_000_000), "2026.11.30");
    }

    #[test]
    fn results_read_from_the_first_seat_as_white() {
        let o = |a, b| Outcome {
            results: vec![a, b],
            reason: String::new(),
        };
        use SeatResult::*;
        assert_eq!(result(&o(Win, Loss)), "1-0");
        assert_eq!(result(&o(Loss, Win)), "0-1");
        assert_eq!(result(&o(Draw, Draw)), "1/2-1/2");
        assert_eq!(result(&o(Score(0), Score(-10))), "1-0");
        assert_eq!(result(&o(Score(-10), Score(0))), "0-1");
        assert_eq!(result(&o(Score(-2), Score(-2))), "1/2-1/2");
    }
}
