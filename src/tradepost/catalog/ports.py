"""Ports of loading as a reader reads them.

A listing's port of loading is free text, most often one of the world's main container ports
written in English ("Ningbo") or, by Chinese suppliers, in Chinese ("宁波"). The ports below
have their usual names in English, Simplified and Traditional Chinese (Traditional as used in
Taiwan); a port found here is shown in the viewer's language, any other text as written,
marked with its language.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from tradepost.catalog.selectors import language_tag
from tradepost.core.chinese_scripts import CHINESE_SCRIPTS
from tradepost.core.languages import normalise_ui_language

#: English name: (Simplified Chinese, Traditional Chinese).
PORT_NAMES: dict[str, tuple[str, str]] = {
    # China, Hong Kong, Taiwan
    "Shanghai": ("上海", "上海"),
    "Ningbo": ("宁波", "寧波"),
    "Ningbo-Zhoushan": ("宁波舟山", "寧波舟山"),
    "Shenzhen": ("深圳", "深圳"),
    "Yantian": ("盐田", "鹽田"),
    "Shekou": ("蛇口", "蛇口"),
    "Guangzhou": ("广州", "廣州"),
    "Nansha": ("南沙", "南沙"),
    "Xiamen": ("厦门", "廈門"),
    "Fuzhou": ("福州", "福州"),
    "Qingdao": ("青岛", "青島"),
    "Tianjin": ("天津", "天津"),
    "Dalian": ("大连", "大連"),
    "Lianyungang": ("连云港", "連雲港"),
    "Yingkou": ("营口", "營口"),
    "Rizhao": ("日照", "日照"),
    "Zhuhai": ("珠海", "珠海"),
    "Shantou": ("汕头", "汕頭"),
    "Nanjing": ("南京", "南京"),
    "Wuhan": ("武汉", "武漢"),
    "Chongqing": ("重庆", "重慶"),
    "Hong Kong": ("香港", "香港"),
    "Keelung": ("基隆", "基隆"),
    "Taichung": ("台中", "台中"),
    "Kaohsiung": ("高雄", "高雄"),
    "Taipei": ("台北", "台北"),
    # East and Southeast Asia
    "Busan": ("釜山", "釜山"),
    "Incheon": ("仁川", "仁川"),
    "Tokyo": ("东京", "東京"),
    "Yokohama": ("横滨", "橫濱"),
    "Nagoya": ("名古屋", "名古屋"),
    "Osaka": ("大阪", "大阪"),
    "Kobe": ("神户", "神戶"),
    "Singapore": ("新加坡", "新加坡"),
    "Port Klang": ("巴生港", "巴生港"),
    "Penang": ("槟城", "檳城"),
    "Tanjung Pelepas": ("丹戎帕拉帕斯", "丹戎帕拉帕斯"),
    "Laem Chabang": ("林查班", "林查班"),
    "Bangkok": ("曼谷", "曼谷"),
    "Ho Chi Minh City": ("胡志明市", "胡志明市"),
    "Haiphong": ("海防", "海防"),
    "Da Nang": ("岘港", "峴港"),
    "Manila": ("马尼拉", "馬尼拉"),
    "Jakarta": ("雅加达", "雅加達"),
    "Tanjung Priok": ("丹戎不碌", "丹戎不碌"),
    "Surabaya": ("泗水", "泗水"),
    # South Asia and the Middle East
    "Nhava Sheva": ("那瓦舍瓦", "那瓦舍瓦"),
    "Mundra": ("蒙德拉", "蒙德拉"),
    "Chennai": ("金奈", "清奈"),
    "Karachi": ("卡拉奇", "喀拉蚩"),
    "Chittagong": ("吉大港", "吉大港"),
    "Colombo": ("科伦坡", "可倫坡"),
    "Jebel Ali": ("杰贝阿里", "傑貝阿里"),
    "Dubai": ("迪拜", "杜拜"),
    "Jeddah": ("吉达", "吉達"),
    "Dammam": ("达曼", "達曼"),
    # Europe
    "Rotterdam": ("鹿特丹", "鹿特丹"),
    "Amsterdam": ("阿姆斯特丹", "阿姆斯特丹"),
    "Antwerp": ("安特卫普", "安特衛普"),
    "Hamburg": ("汉堡", "漢堡"),
    "Bremerhaven": ("不来梅港", "不來梅港"),
    "Felixstowe": ("费利克斯托", "費利克斯托"),
    "Southampton": ("南安普敦", "南安普敦"),
    "Le Havre": ("勒阿弗尔", "勒阿弗爾"),
    "Marseille": ("马赛", "馬賽"),
    "Valencia": ("瓦伦西亚", "瓦倫西亞"),
    "Barcelona": ("巴塞罗那", "巴塞隆納"),
    "Algeciras": ("阿尔赫西拉斯", "阿爾赫西拉斯"),
    "Genoa": ("热那亚", "熱那亞"),
    "Venice": ("威尼斯", "威尼斯"),
    "Piraeus": ("比雷埃夫斯", "比雷埃夫斯"),
    "Gdańsk": ("格但斯克", "格但斯克"),
    "Gothenburg": ("哥德堡", "哥德堡"),
    "Lisbon": ("里斯本", "里斯本"),
    "Istanbul": ("伊斯坦布尔", "伊斯坦堡"),
    "Izmir": ("伊兹密尔", "伊茲密爾"),
    "Mersin": ("梅尔辛", "梅爾辛"),
    # Africa
    "Alexandria": ("亚历山大", "亞歷山大"),
    "Durban": ("德班", "德班"),
    "Cape Town": ("开普敦", "開普敦"),
    "Mombasa": ("蒙巴萨", "蒙巴薩"),
    "Lagos": ("拉各斯", "拉哥斯"),
    # The Americas and Oceania
    "Los Angeles": ("洛杉矶", "洛杉磯"),
    "Long Beach": ("长滩", "長灘"),
    "Oakland": ("奥克兰", "奧克蘭"),
    "Seattle": ("西雅图", "西雅圖"),
    "Houston": ("休斯敦", "休士頓"),
    "Savannah": ("萨凡纳", "薩凡納"),
    "New York": ("纽约", "紐約"),
    "Vancouver": ("温哥华", "溫哥華"),
    "Montreal": ("蒙特利尔", "蒙特婁"),
    "Manzanillo": ("曼萨尼约", "曼薩尼約"),
    "Santos": ("桑托斯", "桑托斯"),
    "Valparaíso": ("瓦尔帕莱索", "瓦爾帕萊索"),
    "Sydney": ("悉尼", "雪梨"),
    "Melbourne": ("墨尔本", "墨爾本"),
    "Brisbane": ("布里斯班", "布里斯本"),
}


@dataclass(frozen=True)
class PortName:
    name: str
    language: str  # the language the name is written in (a listing language code)

    @property
    def lang_tag(self) -> str:
        return language_tag(self.language)


def _key(text: str) -> str:
    return " ".join(text.replace("港", "").split()).casefold() if text else ""


@cache
def _index() -> dict[str, tuple[str, str, str]]:
    """Every known name (English, either script; with or without "港" and "port of") to the
    port's three names."""
    index: dict[str, tuple[str, str, str]] = {}
    for english, (simplified, traditional) in PORT_NAMES.items():
        names = (english, simplified, traditional)
        for name in names:
            index[_key(name)] = names
        index[_key(f"Port of {english}")] = names
    return index


def port_name(text: str, *, language: str, listing_language: str) -> PortName:
    """The port `text` (as a supplier wrote it) for a viewer of `language`: the port's name in
    that language when it is a known port, else `text` as written, in the listing's language
    when written in Chinese characters there, else taken as a name written in Latin letters."""
    text = (text or "").strip()
    language = normalise_ui_language(language)
    known = _index().get(_key(text))
    if known is not None:
        english, simplified, traditional = known
        if language == "zh-hans":
            return PortName(simplified, language)
        if language == "zh-hant":
            return PortName(traditional, language)
        return PortName(english, "en")
    listing_language = (listing_language or "en").lower()
    if text.isascii():
        return PortName(text, "en")
    if any("\u4e00" <= c <= "\u9fff" for c in text) and listing_language not in CHINESE_SCRIPTS:
        return PortName(text, "zh")
    return PortName(text, listing_language)
