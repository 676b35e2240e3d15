from __future__ import annotations

import asyncio
import gc
import logging
from typing import Any

import pytest
from scrapy.utils.test import get_crawler

from scrapy_simdedup.errors import SettingError
from scrapy_simdedup.scrapy_layer.startup import config_for


def test_settings_are_read_once_per_crawler() -> None:
    crawler = get_crawler(settings_dict={"SIMDEDUP_CONTENT_MAX_DISTANCE": 4})
    assert config_for(crawler) is config_for(crawler)
    assert config_for(crawler).content_max_distance == 4


def test_a_wrong_setting_is_one_error_line_however_often_it_is_read(
    caplog: pytest.LogCaptureFixture,
) -> None:
    crawler = get_crawler(settings_dict={"SIMDEDUP_DROPP": True})
    for _ in range(2):  # the middleware, then the pipeline
        with pytest.raises(SettingError, match="did you mean SIMDEDUP_DROP"):
            config_for(crawler)
    assert caplog.record_tuples == [
        (
            "scrapy_simdedup.scrapy_layer.startup",
            logging.ERROR,
            "simdedup: SIMDEDUP_DROPP is not a scrapy-simdedup setting; did you mean "
            "SIMDEDUP_DROP? Fix it in settings.py, the spider's custom_settings or the -s "
            "option; the crawl stopped before fetching anything.",
        )
    ]


def test_the_loop_prints_other_exceptions_as_before() -> None:
    """Only the exception already logged is kept from asyncio's "never retrieved" report."""
    reported: list[Any] = []

    async def build(settings: dict[str, Any]) -> None:
        config_for(get_crawler(settings_dict=settings))

    async def main() -> None:
        asyncio.get_running_loop().set_exception_handler(
            lambda loop, context: reported.append(context.get("exception"))
        )
        for settings in ({"SIMDEDUP_STORE": "sqlite"}, {"SIMDEDUP_CJK": object()}):
            task = asyncio.get_running_loop().create_task(build(settings))
            await asyncio.wait([task])
            del task
            gc.collect()  # the task reports its exception when it is collected
        failing = asyncio.get_running_loop().create_task(_fails())
        await asyncio.wait([failing])
        del failing
        gc.collect()

    asyncio.run(main())
    assert [type(exc) for exc in reported] == [RuntimeError]


async def _fails() -> None:
    raise RuntimeError("not ours")
