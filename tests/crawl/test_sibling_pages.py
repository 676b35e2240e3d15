"""A laptop maker's product line: every model page has its own name, price, SKU, one-line
pitch and specification table, beside a long "About the Aurora series" section (overview,
FAQ, build notes) inside <main> that every model page repeats. A human sees eight products
and plain Scrapy keeps all eight. Before siblings were told from copies, the plugin kept
one of them with 2 of these 3 store seeds: each model adds fewer words than 5% of its
text, and a dropped page's blocks are not counted, so the series never became template."""

from __future__ import annotations

import html
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from tests.support.crawls import Crawl, beside_plain_scrapy
from tests.support.htmlsite import serve_html

pytestmark = pytest.mark.timeout(600)

SERIES = (
    "The Aurora series is built for people who work anywhere. Every Aurora laptop is machined from a single block of recycled aluminium, so the chassis stays rigid when you carry it by one corner. The keyboard has full-size keys with 1.5 millimetres of travel and a backlight that adjusts itself to the room. A glass trackpad with haptic feedback gives the same click wherever you press it. The hinge opens with one finger and holds the display steady on a train or a plane. Our thermal design moves heat through a vapour chamber to twin fans that stay quiet under everyday loads. Fast charging brings the battery to half in about thirty minutes with the included adapter. Every model ships with a one-year limited warranty that covers parts and labour at any of our service centres. You can extend the warranty to three years within ninety days of purchase from your account page. Accidental damage protection is available as an option and covers drops and spills. Our support team answers by phone, chat and email seven days a week. Software updates for the firmware and drivers are delivered through the Aurora Control Center app. We recycle your old laptop for free when you buy a new Aurora, whatever the brand. Orders placed before two in the afternoon are dispatched the same working day. Standard delivery is free and usually takes two to four working days. Express delivery arrives the next working day for a small surcharge. You may return any laptop within thirty days if it is in its original condition. Refunds are paid to the original payment method within five working days of the return reaching our warehouse. Business customers can ask for volume pricing and custom imaging through our sales team. Student discounts are available with a valid university email address. The Aurora series has been awarded for its design and its repairability score. Spare parts such as batteries, keyboards and displays can be ordered from our parts store for five years after the end of sale. Repair manuals for every model are published on our website under a free licence. Each laptop comes with a USB-C charger, a quick start guide and a cleaning cloth in plastic-free packaging."  # noqa: E501
    " Frequently asked questions. Can I upgrade the memory later? Memory is soldered on thin models, so choose the amount you need when you order. Can I replace the SSD myself? Yes, the SSD sits behind a single panel held by five standard screws, and our repair manual shows every step. Does the laptop support two external monitors? Every Aurora drives at least two external displays through its USB-C or Thunderbolt ports. Which operating systems are supported? Aurora laptops ship with Windows 11 Home or Pro, and every component has drivers for current Linux distributions. How do I register my warranty? Your warranty starts on the day of delivery and is registered automatically with your order number. What happens if my laptop fails abroad? Our international warranty is honoured by partner service centres in more than forty countries. Can I collect my order in a store? Orders can be collected from any of our twelve stores two days after you place them. How is my laptop packed? Every laptop travels in a recycled cardboard box with moulded pulp inserts and no plastic foam. Do you price match? We match the price of any authorised retailer in the same country for fourteen days after your purchase. How do I pay in instalments? Instalments over twelve or twenty-four months are offered at checkout, subject to a credit check by our finance partner. Is the battery covered by the warranty? The battery is covered for one year, or until it falls below eighty percent of its capacity within that year. How long will my model get firmware updates? We publish firmware and driver updates for at least five years after a model's launch."  # noqa: E501
    " What is in the box and how we build it. Every Aurora is assembled in our own factory in Eindhoven from parts we choose for a long life. The aluminium we use is at least ninety percent recycled and the packaging is fully recyclable. Our displays are calibrated one by one at the factory, and the calibration report is stored on the laptop. Each keyboard is tested for ten million keystrokes before a design goes into production. The speakers are tuned by our audio team for voices first, so video calls sound clear even in a noisy room. A privacy shutter covers the webcam, and the microphones can be switched off with a single key. The fingerprint reader is built into the power button and works before the operating system starts. We do not install trial software or advertising on any Aurora, so the laptop starts clean."  # noqa: E501
)

MODELS = [
    ("Aurora 13", "1099", "AU13-2024", "The lightest Aurora, for students and frequent flyers who count every gram.",  # noqa: E501
     [("Processor", "Intel Core i5-1335U"), ("Memory", "8 GB LPDDR5"), ("Storage", "256 GB NVMe SSD"), ("Display", "13.3 inch 1920x1200 IPS"), ("Graphics", "Intel Iris Xe"), ("Battery", "54 Wh"), ("Weight", "1.09 kg"), ("Ports", "2x USB-C, audio jack"), ("Colour", "Silver")]),  # noqa: E501
    ("Aurora 14 Pro", "1599", "AU14P-2024", "A creator's machine with a bright OLED panel and room for large photo libraries.",  # noqa: E501
     [("Processor", "Intel Core i7-1360P"), ("Memory", "16 GB LPDDR5"), ("Storage", "1 TB NVMe SSD"), ("Display", "14 inch 2880x1800 OLED"), ("Graphics", "Intel Iris Xe"), ("Battery", "72 Wh"), ("Weight", "1.38 kg"), ("Ports", "2x Thunderbolt 4, HDMI, SD card"), ("Colour", "Graphite")]),  # noqa: E501
    ("Aurora 16 Max", "2499", "AU16M-2024", "Our most powerful Aurora, with a discrete graphics card for 3D work and games.",  # noqa: E501
     [("Processor", "AMD Ryzen 9 7940HS"), ("Memory", "32 GB DDR5"), ("Storage", "2 TB NVMe SSD"), ("Display", "16 inch 2560x1600 165 Hz"), ("Graphics", "NVIDIA GeForce RTX 4070"), ("Battery", "90 Wh"), ("Weight", "2.15 kg"), ("Ports", "3x USB-C, 2x USB-A, HDMI, Ethernet"), ("Colour", "Midnight blue")]),  # noqa: E501
    ("Aurora 15 Business", "1349", "AU15B-2024", "Built for fleets, with a smart card reader, vPro management and a privacy screen.",  # noqa: E501
     [("Processor", "Intel Core i5-1345U vPro"), ("Memory", "16 GB DDR5"), ("Storage", "512 GB NVMe SSD"), ("Display", "15.6 inch 1920x1080 privacy"), ("Graphics", "Intel Iris Xe"), ("Battery", "60 Wh"), ("Weight", "1.65 kg"), ("Ports", "Smart card, USB-C, USB-A, HDMI, Ethernet"), ("Colour", "Black")]),  # noqa: E501
    ("Aurora 13 Flip", "1249", "AU13F-2024", "A convertible that folds into a tablet, with a pen that docks magnetically on the lid.",  # noqa: E501
     [("Processor", "Intel Core i5-1335U"), ("Memory", "16 GB LPDDR5"), ("Storage", "512 GB NVMe SSD"), ("Display", "13.3 inch 1920x1200 touch"), ("Graphics", "Intel Iris Xe"), ("Battery", "57 Wh"), ("Weight", "1.32 kg"), ("Ports", "2x USB-C, microSD"), ("Colour", "Sand")]),  # noqa: E501
    ("Aurora 14 Air", "999", "AU14A-2024", "Fanless and silent, for writers and note takers who want a laptop that never hums.",  # noqa: E501
     [("Processor", "Qualcomm Snapdragon X Plus"), ("Memory", "16 GB LPDDR5X"), ("Storage", "512 GB NVMe SSD"), ("Display", "14 inch 2240x1400 IPS"), ("Graphics", "Adreno X1"), ("Battery", "66 Wh"), ("Weight", "1.19 kg"), ("Ports", "2x USB-C"), ("Colour", "Mist green")]),  # noqa: E501
    ("Aurora 17 Studio", "3199", "AU17S-2024", "A desktop replacement with a colour-accurate mini LED screen for video editors.",  # noqa: E501
     [("Processor", "Intel Core i9-13900H"), ("Memory", "64 GB DDR5"), ("Storage", "4 TB NVMe SSD RAID 0"), ("Display", "17 inch 3840x2400 mini LED"), ("Graphics", "NVIDIA GeForce RTX 4080"), ("Battery", "99 Wh"), ("Weight", "2.6 kg"), ("Ports", "2x Thunderbolt 4, HDMI 2.1, SD Express, Ethernet"), ("Colour", "Space grey")]),  # noqa: E501
    ("Aurora 15 Education", "799", "AU15E-2024", "A rugged model for classrooms, with a spill-proof keyboard and rubber bumpers.",  # noqa: E501
     [("Processor", "Intel Core i3-1315U"), ("Memory", "8 GB DDR4"), ("Storage", "128 GB NVMe SSD"), ("Display", "15.6 inch 1366x768 anti-glare"), ("Graphics", "Intel UHD"), ("Battery", "50 Wh"), ("Weight", "1.8 kg"), ("Ports", "USB-C, 2x USB-A, HDMI"), ("Colour", "Blue")]),  # noqa: E501
]  # fmt: skip


def model_html(name: str, price: str, sku: str, pitch: str, specs: list[tuple[str, str]]) -> str:
    rows = "".join(f"<tr><th>{k}</th><td>{html.escape(v)}</td></tr>" for k, v in specs)
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{name}</title></head><body>"
        f"<header>Aurora Computers</header><nav><a href='/'>All laptops</a></nav><main>"
        f"<h1>{name}</h1><p>{price} EUR</p><p>SKU {sku}</p><p>{html.escape(pitch)}</p>"
        f"<h2>Specifications</h2><table>{rows}</table>"
        f"<section><h2>About the Aurora series</h2><p>{html.escape(SERIES)}</p></section>"
        f"</main><footer>Aurora Computers 2024</footer></body></html>"
    )


def pages() -> dict[str, str]:
    site = {f"/laptops/{i}": model_html(*m) for i, m in enumerate(MODELS)}
    links = "".join(f"<li><a href='/laptops/{i}'>{m[0]}</a></li>" for i, m in enumerate(MODELS))
    site["/"] = f"<!doctype html><html><body><nav><ul>{links}</ul></nav></body></html>"
    return site


def serve() -> AbstractContextManager[str]:
    return serve_html(pages())


def _models(crawl: Crawl) -> list[str]:
    return sorted(str(item["title"]) for item in crawl.items if "/laptops/" in str(item["url"]))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_laptop_model_is_kept(tmp_path: Path, seed: int) -> None:
    with serve() as url:
        plain, plugin = beside_plain_scrapy(url, tmp_path, seed)
    print(f"seed {seed} plain  kept {len(_models(plain))}: {_models(plain)}")
    print(f"seed {seed} plugin kept {len(_models(plugin))}: {_models(plugin)}")
    assert _models(plugin) == _models(plain) == sorted(m[0] for m in MODELS)
