"""Reference tables for recursive_cleaner.toolkit: ISO 3166-1 countries and US states and
territories.

Standard library only and no imports at all: the sandbox child loads this file by path.
One entry a line, fields separated by ``|``: the codes, the canonical English name, then
variants (other names, former names, native names, abbreviations). Variants are matched
after the toolkit's key normalisation (accents, case, punctuation and a leading "the"
do not matter), so "Cote d'Ivoire" and "CÔTE D’IVOIRE" need no entry of their own.
"""

__all__ = ["COUNTRIES", "US_STATES"]

COUNTRIES = """\
AD|AND|Andorra|Principality of Andorra
AE|ARE|United Arab Emirates|UAE|U.A.E.|Emirates|The Emirates
AF|AFG|Afghanistan|Islamic Republic of Afghanistan|Islamic Emirate of Afghanistan
AG|ATG|Antigua and Barbuda|Antigua
AI|AIA|Anguilla
AL|ALB|Albania|Republic of Albania|Shqiperia
AM|ARM|Armenia|Republic of Armenia
AO|AGO|Angola|Republic of Angola
AQ|ATA|Antarctica
AR|ARG|Argentina|Argentine Republic
AS|ASM|American Samoa
AT|AUT|Austria|Republic of Austria|Österreich|Oesterreich
AU|AUS|Australia|Commonwealth of Australia
AW|ABW|Aruba
AX|ALA|Åland Islands|Aland|Åland
AZ|AZE|Azerbaijan|Republic of Azerbaijan
BA|BIH|Bosnia and Herzegovina|Bosnia|Bosnia-Herzegovina|Bosnia Herzegovina|BiH
BB|BRB|Barbados
BD|BGD|Bangladesh|People's Republic of Bangladesh
BE|BEL|Belgium|Kingdom of Belgium|Belgique|België|Belgien
BF|BFA|Burkina Faso|Upper Volta
BG|BGR|Bulgaria|Republic of Bulgaria
BH|BHR|Bahrain|Kingdom of Bahrain
BI|BDI|Burundi|Republic of Burundi
BJ|BEN|Benin|Republic of Benin|Dahomey
BL|BLM|Saint Barthélemy|Saint Barthelemy|St Barts|Saint Barts|St Barths
BM|BMU|Bermuda
BN|BRN|Brunei|Brunei Darussalam|Nation of Brunei
BO|BOL|Bolivia|Plurinational State of Bolivia|Bolivia, Plurinational State of
BQ|BES|Bonaire, Sint Eustatius and Saba|Caribbean Netherlands|Bonaire|Bonaire Sint Eustatius and Saba
BR|BRA|Brazil|Federative Republic of Brazil|Brasil
BS|BHS|Bahamas|Commonwealth of the Bahamas
BT|BTN|Bhutan|Kingdom of Bhutan
BV|BVT|Bouvet Island
BW|BWA|Botswana|Republic of Botswana
BY|BLR|Belarus|Republic of Belarus|Byelorussia|Belorussia
BZ|BLZ|Belize|British Honduras
CA|CAN|Canada
CC|CCK|Cocos (Keeling) Islands|Cocos Islands|Keeling Islands
CD|COD|Democratic Republic of the Congo|DR Congo|DRC|D.R.C.|Congo-Kinshasa|Congo Kinshasa|Congo, The Democratic Republic of the|Congo, Democratic Republic of the|Congo (Kinshasa)|Zaire
CF|CAF|Central African Republic
CG|COG|Republic of the Congo|Congo|Congo-Brazzaville|Congo Brazzaville|Congo Republic|Congo (Brazzaville)|Congo, Republic of the
CH|CHE|Switzerland|Swiss Confederation|Schweiz|Suisse|Svizzera
CI|CIV|Côte d'Ivoire|Ivory Coast|Republic of Côte d'Ivoire
CK|COK|Cook Islands
CL|CHL|Chile|Republic of Chile
CM|CMR|Cameroon|Republic of Cameroon
CN|CHN|China|People's Republic of China|PRC|P.R.C.|Mainland China|Zhongguo
CO|COL|Colombia|Republic of Colombia
CR|CRI|Costa Rica|Republic of Costa Rica
CU|CUB|Cuba|Republic of Cuba
CV|CPV|Cabo Verde|Cape Verde|Republic of Cabo Verde|Cape Verde Islands
CW|CUW|Curaçao|Curacao
CX|CXR|Christmas Island
CY|CYP|Cyprus|Republic of Cyprus
CZ|CZE|Czechia|Czech Republic|Česko|Ceska Republika|Česká republika
DE|DEU|Germany|Federal Republic of Germany|Deutschland|Allemagne|Alemania
DJ|DJI|Djibouti|Republic of Djibouti
DK|DNK|Denmark|Kingdom of Denmark|Danmark
DM|DMA|Dominica|Commonwealth of Dominica
DO|DOM|Dominican Republic|Dominican Rep.|República Dominicana
DZ|DZA|Algeria|People's Democratic Republic of Algeria
EC|ECU|Ecuador|Republic of Ecuador
EE|EST|Estonia|Republic of Estonia|Eesti
EG|EGY|Egypt|Arab Republic of Egypt
EH|ESH|Western Sahara
ER|ERI|Eritrea|State of Eritrea
ES|ESP|Spain|Kingdom of Spain|España|Espana
ET|ETH|Ethiopia|Federal Democratic Republic of Ethiopia
FI|FIN|Finland|Republic of Finland|Suomi
FJ|FJI|Fiji|Republic of Fiji
FK|FLK|Falkland Islands|Falkland Islands (Malvinas)|Falklands|Malvinas|Islas Malvinas
FM|FSM|Micronesia|Federated States of Micronesia|Micronesia, Federated States of
FO|FRO|Faroe Islands|Faroes|Faeroe Islands
FR|FRA|France|French Republic
GA|GAB|Gabon|Gabonese Republic
GB|GBR|United Kingdom|UK|U.K.|Great Britain|Britain|England|Scotland|Wales|Northern Ireland|United Kingdom of Great Britain and Northern Ireland|U.K. of Great Britain and Northern Ireland
GD|GRD|Grenada
GE|GEO|Georgia|Sakartvelo
GF|GUF|French Guiana|Guyane
GG|GGY|Guernsey
GH|GHA|Ghana|Republic of Ghana
GI|GIB|Gibraltar
GL|GRL|Greenland|Kalaallit Nunaat
GM|GMB|Gambia|Republic of the Gambia
GN|GIN|Guinea|Republic of Guinea|Guinea-Conakry
GP|GLP|Guadeloupe
GQ|GNQ|Equatorial Guinea|Republic of Equatorial Guinea
GR|GRC|Greece|Hellenic Republic|Hellas|Ellada
GS|SGS|South Georgia and the South Sandwich Islands|South Georgia
GT|GTM|Guatemala|Republic of Guatemala
GU|GUM|Guam
GW|GNB|Guinea-Bissau|Republic of Guinea-Bissau
GY|GUY|Guyana|Republic of Guyana
HK|HKG|Hong Kong|Hong Kong SAR|Hong Kong Special Administrative Region of China|Hong Kong, China
HM|HMD|Heard Island and McDonald Islands
HN|HND|Honduras|Republic of Honduras
HR|HRV|Croatia|Republic of Croatia|Hrvatska
HT|HTI|Haiti|Republic of Haiti
HU|HUN|Hungary|Magyarország|Magyarorszag
ID|IDN|Indonesia|Republic of Indonesia
IE|IRL|Ireland|Republic of Ireland|Éire|Eire
IL|ISR|Israel|State of Israel
IM|IMN|Isle of Man
IN|IND|India|Republic of India|Bharat
IO|IOT|British Indian Ocean Territory|Chagos Islands
IQ|IRQ|Iraq|Republic of Iraq
IR|IRN|Iran|Islamic Republic of Iran|Iran, Islamic Republic of|Persia
IS|ISL|Iceland|Republic of Iceland|Ísland
IT|ITA|Italy|Italian Republic|Italia
JE|JEY|Jersey
JM|JAM|Jamaica
JO|JOR|Jordan|Hashemite Kingdom of Jordan
JP|JPN|Japan|Nippon|Nihon
KE|KEN|Kenya|Republic of Kenya
KG|KGZ|Kyrgyzstan|Kyrgyz Republic|Kirghizia
KH|KHM|Cambodia|Kingdom of Cambodia|Kampuchea
KI|KIR|Kiribati|Republic of Kiribati
KM|COM|Comoros|Union of the Comoros
KN|KNA|Saint Kitts and Nevis|St Kitts and Nevis|Saint Kitts|St Kitts|St Christopher and Nevis
KP|PRK|North Korea|Democratic People's Republic of Korea|Korea, Democratic People's Republic of|DPRK|D.P.R.K.|Korea DPR|Korea, North
KR|KOR|South Korea|Republic of Korea|Korea, Republic of|Korea|ROK|Korea, South
KW|KWT|Kuwait|State of Kuwait
KY|CYM|Cayman Islands|Caymans
KZ|KAZ|Kazakhstan|Republic of Kazakhstan|Kazakstan
LA|LAO|Laos|Lao People's Democratic Republic|Lao PDR|Lao
LB|LBN|Lebanon|Lebanese Republic
LC|LCA|Saint Lucia|St Lucia
LI|LIE|Liechtenstein|Principality of Liechtenstein
LK|LKA|Sri Lanka|Democratic Socialist Republic of Sri Lanka|Ceylon
LR|LBR|Liberia|Republic of Liberia
LS|LSO|Lesotho|Kingdom of Lesotho
LT|LTU|Lithuania|Republic of Lithuania|Lietuva
LU|LUX|Luxembourg|Grand Duchy of Luxembourg|Luxemburg|Lëtzebuerg
LV|LVA|Latvia|Republic of Latvia|Latvija
LY|LBY|Libya|State of Libya|Libyan Arab Jamahiriya
MA|MAR|Morocco|Kingdom of Morocco|Maroc
MC|MCO|Monaco|Principality of Monaco
MD|MDA|Moldova|Republic of Moldova|Moldova, Republic of
ME|MNE|Montenegro|Crna Gora
MF|MAF|Saint Martin|Saint Martin (French part)|St Martin|Collectivity of Saint Martin
MG|MDG|Madagascar|Republic of Madagascar
MH|MHL|Marshall Islands|Republic of the Marshall Islands
MK|MKD|North Macedonia|Republic of North Macedonia|Macedonia|FYROM|Former Yugoslav Republic of Macedonia|Republic of Macedonia
ML|MLI|Mali|Republic of Mali
MM|MMR|Myanmar|Burma|Republic of the Union of Myanmar|Myanmar (Burma)
MN|MNG|Mongolia
MO|MAC|Macao|Macau|Macao SAR|Macau SAR|Macao Special Administrative Region of China|Macao, China
MP|MNP|Northern Mariana Islands|Commonwealth of the Northern Mariana Islands|Northern Marianas
MQ|MTQ|Martinique
MR|MRT|Mauritania|Islamic Republic of Mauritania
MS|MSR|Montserrat
MT|MLT|Malta|Republic of Malta
MU|MUS|Mauritius|Republic of Mauritius
MV|MDV|Maldives|Republic of Maldives|Maldive Islands
MW|MWI|Malawi|Republic of Malawi
MX|MEX|Mexico|United Mexican States|México
MY|MYS|Malaysia
MZ|MOZ|Mozambique|Republic of Mozambique|Moçambique
NA|NAM|Namibia|Republic of Namibia
NC|NCL|New Caledonia|Nouvelle-Calédonie
NE|NER|Niger|Republic of the Niger
NF|NFK|Norfolk Island
NG|NGA|Nigeria|Federal Republic of Nigeria
NI|NIC|Nicaragua|Republic of Nicaragua
NL|NLD|Netherlands|Holland|Kingdom of the Netherlands|Nederland|The Netherlands
NO|NOR|Norway|Kingdom of Norway|Norge|Noreg
NP|NPL|Nepal|Federal Democratic Republic of Nepal
NR|NRU|Nauru|Republic of Nauru
NU|NIU|Niue
NZ|NZL|New Zealand|Aotearoa
OM|OMN|Oman|Sultanate of Oman
PA|PAN|Panama|Republic of Panama|Panamá
PE|PER|Peru|Republic of Peru|Perú
PF|PYF|French Polynesia|Polynésie française|Tahiti
PG|PNG|Papua New Guinea|Independent State of Papua New Guinea
PH|PHL|Philippines|Republic of the Philippines|Pilipinas
PK|PAK|Pakistan|Islamic Republic of Pakistan
PL|POL|Poland|Republic of Poland|Polska
PM|SPM|Saint Pierre and Miquelon|St Pierre and Miquelon
PN|PCN|Pitcairn Islands|Pitcairn|Pitcairn, Henderson, Ducie and Oeno Islands
PR|PRI|Puerto Rico|Commonwealth of Puerto Rico
PS|PSE|Palestine|State of Palestine|Palestine, State of|Palestinian Territories|Occupied Palestinian Territory
PT|PRT|Portugal|Portuguese Republic
PW|PLW|Palau|Republic of Palau
PY|PRY|Paraguay|Republic of Paraguay
QA|QAT|Qatar|State of Qatar
RE|REU|Réunion|Reunion
RO|ROU|Romania|România|Roumania|Rumania
RS|SRB|Serbia|Republic of Serbia|Srbija
RU|RUS|Russia|Russian Federation|Rossiya|Rossija
RW|RWA|Rwanda|Republic of Rwanda|Rwandese Republic
SA|SAU|Saudi Arabia|Kingdom of Saudi Arabia|KSA
SB|SLB|Solomon Islands
SC|SYC|Seychelles|Republic of Seychelles
SD|SDN|Sudan|Republic of the Sudan|The Sudan
SE|SWE|Sweden|Kingdom of Sweden|Sverige
SG|SGP|Singapore|Republic of Singapore
SH|SHN|Saint Helena, Ascension and Tristan da Cunha|Saint Helena|St Helena
SI|SVN|Slovenia|Republic of Slovenia|Slovenija
SJ|SJM|Svalbard and Jan Mayen|Svalbard
SK|SVK|Slovakia|Slovak Republic|Slovensko
SL|SLE|Sierra Leone|Republic of Sierra Leone
SM|SMR|San Marino|Republic of San Marino
SN|SEN|Senegal|Republic of Senegal
SO|SOM|Somalia|Federal Republic of Somalia
SR|SUR|Suriname|Republic of Suriname|Surinam
SS|SSD|South Sudan|Republic of South Sudan
ST|STP|São Tomé and Príncipe|Sao Tome and Principe|Democratic Republic of São Tomé and Príncipe|Sao Tome
SV|SLV|El Salvador|Republic of El Salvador
SX|SXM|Sint Maarten|Sint Maarten (Dutch part)|St Maarten
SY|SYR|Syria|Syrian Arab Republic
SZ|SWZ|Eswatini|Swaziland|Kingdom of Eswatini|Kingdom of Swaziland
TC|TCA|Turks and Caicos Islands|Turks and Caicos
TD|TCD|Chad|Republic of Chad|Tchad
TF|ATF|French Southern Territories|French Southern and Antarctic Lands
TG|TGO|Togo|Togolese Republic
TH|THA|Thailand|Kingdom of Thailand|Siam
TJ|TJK|Tajikistan|Republic of Tajikistan
TK|TKL|Tokelau
TL|TLS|Timor-Leste|East Timor|Democratic Republic of Timor-Leste
TM|TKM|Turkmenistan
TN|TUN|Tunisia|Republic of Tunisia
TO|TON|Tonga|Kingdom of Tonga
TR|TUR|Türkiye|Turkey|Turkiye|Republic of Türkiye|Republic of Turkey
TT|TTO|Trinidad and Tobago|Trinidad|Republic of Trinidad and Tobago
TV|TUV|Tuvalu
TW|TWN|Taiwan|Taiwan, Province of China|Chinese Taipei
TZ|TZA|Tanzania|United Republic of Tanzania|Tanzania, United Republic of
UA|UKR|Ukraine|Ukraina|Ukrayina
UG|UGA|Uganda|Republic of Uganda
UM|UMI|United States Minor Outlying Islands|U.S. Minor Outlying Islands
US|USA|United States|United States of America|U.S.|U.S.A.|US of A|America|United States (USA)
UY|URY|Uruguay|Eastern Republic of Uruguay|Oriental Republic of Uruguay
UZ|UZB|Uzbekistan|Republic of Uzbekistan
VA|VAT|Vatican City|Holy See|Holy See (Vatican City State)|Vatican|Vatican City State
VC|VCT|Saint Vincent and the Grenadines|St Vincent and the Grenadines|Saint Vincent|St Vincent
VE|VEN|Venezuela|Bolivarian Republic of Venezuela|Venezuela, Bolivarian Republic of
VG|VGB|British Virgin Islands|Virgin Islands, British|BVI
VI|VIR|U.S. Virgin Islands|Virgin Islands, U.S.|US Virgin Islands|United States Virgin Islands|Virgin Islands of the United States|USVI
VN|VNM|Vietnam|Viet Nam|Socialist Republic of Viet Nam|Socialist Republic of Vietnam
VU|VUT|Vanuatu|Republic of Vanuatu
WF|WLF|Wallis and Futuna
WS|WSM|Samoa|Independent State of Samoa|Western Samoa
YE|YEM|Yemen|Republic of Yemen
YT|MYT|Mayotte
ZA|ZAF|South Africa|Republic of South Africa|RSA|Suid-Afrika
ZM|ZMB|Zambia|Republic of Zambia
ZW|ZWE|Zimbabwe|Republic of Zimbabwe
XK|XKX|Kosovo|Republic of Kosovo
"""  # noqa: E501 - a table, one entry a line
"""Code|alpha-3|canonical name|variants...: the 249 ISO 3166-1 entries, plus Kosovo (XK,
user-assigned but in wide use)."""

US_STATES = """\
AL|Alabama|Ala.|Ala
AK|Alaska|Alas.|Alas
AZ|Arizona|Ariz.|Ariz
AR|Arkansas|Ark.|Ark
CA|California|Calif.|Calif|Cal.|Cal|Cali
CO|Colorado|Colo.|Colo|Col.
CT|Connecticut|Conn.|Conn
DE|Delaware|Del.|Del
DC|District of Columbia|D.C.|Washington D.C.|Washington, D.C.|Washington DC|Wash. D.C.|Wash DC
FL|Florida|Fla.|Fla|Flor.
GA|Georgia|Ga.
HI|Hawaii|Hawai'i|Hawaiʻi
ID|Idaho|Ida.
IL|Illinois|Ill.|Ill|Ills.
IN|Indiana|Ind.|Ind
IA|Iowa|Ia.
KS|Kansas|Kan.|Kan|Kans.|Kans
KY|Kentucky|Ky.|Ken.|Kent.
LA|Louisiana|La.
ME|Maine|Me.
MD|Maryland|Md.
MA|Massachusetts|Mass.|Mass
MI|Michigan|Mich.|Mich
MN|Minnesota|Minn.|Minn
MS|Mississippi|Miss.|Miss
MO|Missouri|Mo.
MT|Montana|Mont.|Mont
NE|Nebraska|Neb.|Neb|Nebr.|Nebr
NV|Nevada|Nev.|Nev
NH|New Hampshire|N.H.|N. Hamp.
NJ|New Jersey|N.J.|N. Jersey
NM|New Mexico|N.M.|N. Mex.|N. Mexico|New Mex.
NY|New York|N.Y.|N. York|New York State
NC|North Carolina|N.C.|N. Carolina|N. Car.
ND|North Dakota|N.D.|N. Dak.|N. Dakota|N.Dak.
OH|Ohio
OK|Oklahoma|Okla.|Okla
OR|Oregon|Ore.|Ore|Oreg.|Oreg
PA|Pennsylvania|Pa.|Penn.|Penn|Penna.|Penna
RI|Rhode Island|R.I.
SC|South Carolina|S.C.|S. Carolina|S. Car.
SD|South Dakota|S.D.|S. Dak.|S. Dakota|S.Dak.
TN|Tennessee|Tenn.|Tenn
TX|Texas|Tex.|Tex
UT|Utah|Ut.
VT|Vermont|Vt.
VA|Virginia|Va.|Virg.
WA|Washington|Wash.|Wash|Washington State|Wn.
WV|West Virginia|W.Va.|W. Va.|W. Virginia|W.V.
WI|Wisconsin|Wis.|Wis|Wisc.|Wisc
WY|Wyoming|Wyo.|Wyo
PR|Puerto Rico|P.R.
GU|Guam
VI|U.S. Virgin Islands|V.I.|Virgin Islands|US Virgin Islands|United States Virgin Islands|USVI
AS|American Samoa|A.S.|Amer. Samoa
MP|Northern Mariana Islands|Northern Marianas|N. Mariana Islands|CNMI|Commonwealth of the Northern Mariana Islands
"""  # noqa: E501 - a table, one entry a line
"""Code|canonical name|variants...: the 50 states, DC, Puerto Rico and the inhabited territories,
with AP-style abbreviations."""
