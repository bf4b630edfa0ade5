"""The one reader of both front ends' settings (crawlrank.scrapy, crawlrank.frontera): how a
setting's value becomes a crawlrank.SchedulerOptions field, or a value of the front end's own.

Each front end declares a table (`SettingTable`) of the settings it reads, by the field each
one gives; this module reads them (`read_table`: integers and numbers within their bounds,
seconds and rates as milliseconds, flags, choices, paths), says which fields the user gave
(`given_fields`), reads ``CRAWLRANK_OPTIONS``, the dict of fields set over the others
(`options_dict`), and builds the SchedulerOptions (`table_options`). A value it cannot use
raises OptionsError, whose message names the setting and the value; each front end raises it
again, word for word, as its own settings error (Scrapy's NotConfigured,
crawlrank.frontera.SettingsError).

Neither Scrapy nor Frontera is imported here.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any, Callable, Dict, Optional, Sequence, Set, Tuple

import crawlrank

# The setting both front ends read: a dict of crawlrank.SchedulerOptions fields, applied
# over what their other settings set.
OPTIONS_SETTING = "CRAWLRANK_OPTIONS"

# The setting both front ends read: rank the graph once more when the crawl closes, as
# ``crawlrank crawl`` does at its end (default True).
RANK_AT_CLOSE_SETTING = "CRAWLRANK_RANK_AT_CLOSE"


class OptionsError(ValueError):
    """A setting crawlrank cannot use; the message names the setting (and, for
    ``CRAWLRANK_OPTIONS``, the field) and the value. Each front end raises it again as its own
    settings error."""


# How one setting's value is read: (value, setting name) -> the value to use; raises
# OptionsError naming the setting for a value it refuses.
Reader = Callable[[Any, str], Any]

# A front end's settings: for each value it reads, by the name of the field it sets (a
# crawlrank.SchedulerOptions field, or one of the front end's settings class), the settings
# that give it, each with its reader. The first that is set wins.
SettingTable = Mapping[str, Sequence[Tuple[str, Reader]]]


def read_table(table: SettingTable, get: Callable[[str], Any]) -> Dict[str, Any]:
    """The value of each field of `table` that one of its settings sets (`get`, the front
    end's settings lookup, gives something other than None for it): read from the first such
    setting by its reader. A field none of whose settings is set is left out, so that the
    front end's default stands."""
    out: Dict[str, Any] = {}
    for field, sources in table.items():
        for name, read in sources:
            value = get(name)
            if value is not None:
                out[field] = read(value, name)
                break
    return out


def given_fields(table: SettingTable, is_given: Callable[[str], bool]) -> Set[str]:
    """The fields of `table` the user gave this run: those one of whose settings
    `is_given` (the front end's rule). They override the configuration stored in the PageDB
    (``_frontend.resolve_config``); the others resume it."""
    return {field for field, sources in table.items()
            if any(is_given(name) for name, _ in sources)}


def table_options(table: SettingTable, values: Mapping[str, Any], options: Mapping[str, Any],
                  *, setting: str = OPTIONS_SETTING) -> crawlrank.SchedulerOptions:
    """A SchedulerOptions with each field of `table` set from `values` (None keeps
    crawlrank's default), then the fields `options` (the dict read from `setting`) sets over
    them. A field `options` sets is not set from `values` at all: its settings are overridden,
    even by a value they could not take. Raises OptionsError for a value a field refuses,
    naming the field's first setting in `table`, or `setting` and the field."""
    out = crawlrank.SchedulerOptions()
    for field, sources in table.items():
        value = values.get(field)
        if value is not None and field not in options:
            _set_field(out, field, value, sources[0][0])
    return scheduler_options(options, setting=setting, base=out)


# ---- the readers


def as_is(value: Any, setting: str) -> Any:
    """The value as set: the SchedulerOptions field checks it (table_options names the
    setting when it refuses it)."""
    return value


def integer(minimum: int) -> Reader:
    """A reader of an integer of at least `minimum`: an int, or its digits in a string (as
    ``scrapy crawl -s NAME=...`` gives it); not a bool, nor a float."""
    def read(value: Any, setting: str) -> int:
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise OptionsError(f"{setting}={value!r}: expected an integer")
        try:
            number = int(value)
        except ValueError:
            raise OptionsError(f"{setting}={value!r}: expected an integer") from None
        if number < minimum:
            raise OptionsError(f"{setting}={value!r}: expected an integer >= {minimum}")
        return number
    return read


def number(minimum: float, *, inclusive: bool = True, below: Optional[float] = None) -> Reader:
    """A reader of a number (an int, a float, or one in a string) of at least `minimum`,
    above it when not `inclusive`, and under `below` when given; never NaN."""
    if below is not None:
        bounds = f"in {'[' if inclusive else '('}{minimum:g}, {below:g})"
    else:
        bounds = f"{'>=' if inclusive else '>'} {minimum:g}"

    def read(value: Any, setting: str) -> float:
        try:
            out = float(value)
        except (TypeError, ValueError):
            raise OptionsError(f"{setting}={value!r}: expected a number") from None
        if (out != out or out < minimum or (not inclusive and out == minimum)
                or (below is not None and out >= below)):
            raise OptionsError(f"{setting}={value!r}: expected a number {bounds}")
        return out
    return read


def seconds_as_ms(*, positive: bool = False) -> Reader:
    """A reader of a duration in seconds (a number >= 0, or > 0 when `positive`) as whole
    milliseconds, rounded; a positive duration is at least 1 ms, never 0 (which would mean
    none)."""
    seconds = number(0.0, inclusive=not positive)

    def read(value: Any, setting: str) -> int:
        ms = round(seconds(value, setting) * 1000)
        return max(1, ms) if positive else ms
    return read


_RATE = number(0.0, inclusive=False)


def rate_as_ms(value: Any, setting: str) -> int:
    """A rate in requests per second (a number > 0: Aduana's crawl limits) as the
    milliseconds between two requests, rounded."""
    return round(1000.0 / _RATE(value, setting))


def flag(value: Any, setting: str) -> bool:
    """A yes/no setting: a bool, 0 or 1, or a string "true"/"false", "1"/"0", "yes"/"no",
    "on"/"off" (any case, as ``scrapy crawl -s NAME=...`` gives it). Raises OptionsError
    naming `setting` for anything else."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off"):
            return False
    raise OptionsError(f"{setting}={value!r}: expected True or False")


def choice(*choices: str) -> Reader:
    """A reader of one of `choices`."""
    def read(value: Any, setting: str) -> str:
        if value not in choices:
            raise OptionsError(f"{setting}={value!r}: expected one of {', '.join(choices)}")
        return value
    return read


def path(value: Any, setting: str) -> str:
    """A directory path: a string, bytes or an os.PathLike, as a string. An empty one stays
    empty: each front end says what it means."""
    try:
        out = os.fspath(value)
    except TypeError:
        raise OptionsError(f"{setting}={value!r}: expected a directory path") from None
    return os.fsdecode(out) if isinstance(out, bytes) else out


# The settings of their own both front ends read under the same names, with the same
# defaults (their settings classes have these fields): how a new PageDB canonicalises its
# URLs, how durable its writes are, and the rank at close.
COMMON_SETTINGS: SettingTable = {
    "url_profile": (("CRAWLRANK_URL_PROFILE", choice("w3lib", "rfc3986")),),
    "durability": (("CRAWLRANK_DURABILITY", choice("sync", "periodic", "none")),),
    "rank_at_close": ((RANK_AT_CLOSE_SETTING, flag),),
}


# ---- CRAWLRANK_OPTIONS


def options_dict(value: Any, setting: str = OPTIONS_SETTING) -> Dict[str, Any]:
    """The dict of SchedulerOptions fields a setting holds: a mapping, or a JSON object (as
    ``scrapy crawl -s NAME=...`` gives it). None, an empty string and other empty values
    mean no options. Raises OptionsError naming `setting` for anything else. The names and
    values are checked by :func:`scheduler_options`."""
    if not value:
        return {}
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError as error:
            raise OptionsError(f"{setting}={value!r}: not a JSON object ({error})") from None
    if not isinstance(value, Mapping):
        raise OptionsError(f"{setting}={value!r}: expected a dict of crawlrank.SchedulerOptions "
                           "fields")
    return dict(value)


def scheduler_options(options: Mapping, *, setting: str = OPTIONS_SETTING,
                      base: Optional[crawlrank.SchedulerOptions] = None
                      ) -> crawlrank.SchedulerOptions:
    """Sets each field named in `options` on `base` (a new SchedulerOptions when None) and
    returns it; `base` is changed in place. Raises OptionsError, naming `setting`, the field
    and the value, for a name SchedulerOptions does not have and for a value its field
    refuses (the wrong type, or a name crawlrank does not know, e.g. a score mode)."""
    out = crawlrank.SchedulerOptions() if base is None else base
    for name, value in options.items():
        if not isinstance(name, str) or name.startswith("_") or not hasattr(out, name):
            raise OptionsError(f"{setting}: unknown scheduler option {name!r} (see "
                               "crawlrank.SchedulerOptions)")
        _set_field(out, name, value, f"{setting}[{name!r}]")
    return out


def _set_field(options: crawlrank.SchedulerOptions, name: str, value: Any, label: str) -> None:
    """Sets field `name` of `options`; OptionsError, its message starting `label=value: `,
    when the field refuses the value."""
    try:
        setattr(options, name, value)
    except TypeError:  # pybind11's message lists signatures: say what the field takes
        default = getattr(crawlrank.SchedulerOptions(), name)
        raise OptionsError(f"{label}={value!r}: expected {_expected(default, value)} (the "
                           f"default is {default!r})") from None
    except ValueError as error:  # crawlrank.InvalidArgumentError: its cause says why
        raise OptionsError(f"{label}={value!r}: {error}") from None


def _expected(default: Any, value: Any) -> str:
    """What a field whose default is `default` takes, when it refused `value` by type."""
    if isinstance(default, bool):
        return "True or False"
    if isinstance(default, int):
        if isinstance(value, int) and not isinstance(value, bool):
            # The field took no integer of this size: an unsigned field, or out of range.
            return "an integer >= 0" if value < 0 else "a smaller integer"
        return "an integer"
    if isinstance(default, float):
        return "a number"
    if isinstance(default, str):
        return "a string"
    if isinstance(default, list):
        return "a list of strings"
    return f"a {type(default).__name__}"
